/**
 * `npm start [-- origin ...]`: starts the analysis (8081), allocation (8082), search (8083) and gateway
 * (4000) origins, or only the ones named, on the configured store; Ctrl-C stops them cleanly. The
 * subgraphs run on the main thread, which owns the store; the gateway runs in a worker thread of its
 * own (GATEWAY_THREAD=false: on the main thread too), so the two use two cores. Start-up steps with bulk
 * work to do (a first start's demo market and analysis) run before, in a child process of their own that
 * exits before the origins open the store (START_UP_CHILD=false: in this process). When the embedded
 * store does not exist yet, that child is forked first, and creates the store while this process loads
 * the origins' modules.
 */
import { SingleBar } from 'cli-progress';
import { ConfigError, loadConfig, ORIGINS, SUBGRAPHS, type Config, type Origin } from '../subgraphs/platform/config.js';
import { isStorageFull, StorageFullError } from '../subgraphs/platform/db.js';
import type { RunningPlatform } from './platform.js';
import { prepareGatewayThread, withLocalSubgraphs, type GatewayThread } from '../gateway/thread.js';
import { formatAnalyzeSummary, ordinal } from './analyze-report.js';
import { embeddedStoreIsNew, startUpStepsInChild, type StartUpFollow } from './start-up-fork.js';

function parseOrigins(args: string[]): Origin[] {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`Usage: npm start [-- ${ORIGINS.join('|')} ...]\nStarts every origin when none is named. Configuration: see README.md.`);
    process.exit(0);
  }
  const unknown = args.filter((a) => !(ORIGINS as readonly string[]).includes(a));
  if (unknown.length) {
    console.error(`Unknown origin(s): ${unknown.join(', ')}. Choose from ${ORIGINS.join(', ')}.`);
    process.exit(2);
  }
  return args.length ? (args as Origin[]) : [...ORIGINS];
}

async function main(): Promise<void> {
  const origins = parseOrigins(process.argv.slice(2));
  const config = loadConfig();
  exitOnFatalErrors(config);
  const started = Date.now();
  const store = config.databaseUrl ? `PostgreSQL (${new URL(config.databaseUrl).host})` : `embedded PGlite in ${config.dataDir}`;
  console.log(`tradegraph: starting ${origins.join(', ')} on ${store}`);

  // Signals are handled from the first moment: a Ctrl-C during start-up stops as soon as the step
  // under way ends (the demo load is one transaction), a second one forces the exit.
  let platform: RunningPlatform | undefined;
  let gateway: GatewayThread | undefined;
  let stopping = false;
  const startUp = new AbortController();
  const stop = (signal: string) => {
    if (stopping) {
      console.error('Forced exit.');
      process.exit(1);
    }
    stopping = true;
    startUp.abort();
    console.log(`\n${signal}: ${platform ? 'draining requests and closing the store' : 'stopping after the current start-up step'}...`);
    if (platform) shutDown(platform, gateway);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const analysisBar = lazyBar(
    config.analysis.historyEvery > 0
      ? `Analysing the last ${config.analysis.onStartDays} trading days and every ${ordinal(config.analysis.historyEvery)}trading day of the history, where missing (stage, indicators, patterns, levels, signals; the history measures what the analysis is worth: evidence, calibration, Kelly odds)...`
      : `Analysing the last ${config.analysis.onStartDays} trading days (stage, indicators, patterns, levels, signals)...`,
    'analysis',
    'snapshots',
  );
  const demoBar = lazyBar(`Generating the synthetic demo market (seed ${config.demo.seed}, ${config.demo.symbolCount} symbols, ${config.demo.years} years)...`, 'demo market', 'symbols');
  // The gateway in its own thread starts once the subgraphs listen (it is given where they do).
  const gatewayThread = origins.includes('gateway') && config.gateway.thread;
  const platformOrigins = gatewayThread ? origins.filter((o) => o !== 'gateway') : origins;
  const startUpOptions: StartUpFollow = {
    signal: startUp.signal,
    onAnalysisProgress: (phase, done, total) => phase === 'analyze' && analysisBar(done, total),
    onDemoProgress: demoBar,
  };
  // A store that does not exist yet is created and filled by the start-up child: it is forked before the
  // origins' modules load (a second or two), and creates the store meanwhile.
  const subgraphs = SUBGRAPHS.filter((s) => platformOrigins.includes(s));
  const startUpChild = config.startUpChild && subgraphs.length > 0 && embeddedStoreIsNew(config) ? startUpStepsInChild(config, subgraphs, startUpOptions) : undefined;
  // Its failure is reported where startPlatform awaits it, not as an unhandled rejection before.
  startUpChild?.catch(() => undefined);
  // The gateway thread loads its modules meanwhile too; it starts once the subgraphs listen.
  const preparedGateway = gatewayThread ? prepareGatewayThread() : undefined;
  const [{ formatStartUpTimings, startPlatform }, { signsDevIdTokens }] = await Promise.all([
    import('./platform.js'),
    import('../subgraphs/platform/dev-secret.js'),
  ]);
  const running = await startPlatform(config, platformOrigins, { ...startUpOptions, startUpInChild: config.startUpChild, startUpChild });
  if (stopping) return shutDown(running);
  const urls = { ...running.urls };
  if (preparedGateway) {
    // A Ctrl-C while the thread starts is acted on once it has (platform is set after it).
    try {
      gateway = await preparedGateway.start(withLocalSubgraphs(config, running.urls), (reason) => {
        if (stopping) return;
        stopping = true;
        console.error(`tradegraph: the gateway thread stopped unexpectedly: ${reason}`);
        console.error('Stopping the other origins (a platform without its gateway is not left running).');
        shutDown(running, undefined, 1);
      });
    } catch (err) {
      await running.close().catch(() => undefined);
      throw err;
    }
    urls.gateway = gateway.url;
    if (stopping) return shutDown(running, gateway);
  }
  platform = running;
  if (platform.demo) {
    console.log(`Demo market loaded: ${platform.demo.securities} securities, ${platform.demo.bars} bars, ${platform.demo.firstDate}..${platform.demo.lastDate} (synthetic)`);
  }
  if (platform.demoBook) {
    const b = platform.demoBook;
    console.log(`Demo book ${b.portfolioId} for ${b.partnerId}: ${b.symbols.join(', ')} and cash ${b.cash} of ${b.totalValue}`);
  }
  if (platform.analysis) console.log(formatAnalyzeSummary(platform.analysis));
  if (platform.history) {
    const h = platform.history;
    console.log(`History: every ${ordinal(h.every)}trading day, ${h.dates} date(s) on ${h.fromDate}..${h.toDate}, in the run above`);
  }
  if (platform.evidence && platform.evidence.tables + platform.evidence.odds > 0) {
    console.log(`Evidence measured: ${platform.evidence.tables} monthly evidence tables, ${platform.evidence.odds} Kelly odds tables in ${(platform.evidence.ms / 1000).toFixed(1)} s`);
  }
  for (const origin of origins) console.log(`  ${origin.padEnd(10)} ${urls[origin]}  (GraphQL: ${urls[origin]}/graphql)`);
  if (origins.includes('analysis')) console.log(`  demo symbol ${config.demo.symbol}`);
  if (origins.includes('gateway')) console.log(`  supergraph ${config.gateway.supergraphPath ?? 'schema/supergraph.graphql'} (reloaded when it changes)`);
  if (gateway) console.log(`  gateway runs in its own thread (GATEWAY_THREAD=false: on the main thread)`);
  if (origins.includes('gateway') && config.gateway.console) {
    console.log(`  web console ${urls.gateway}/console${signsDevIdTokens(config) ? ' ("Sign in as the demo partner" mints a development token)' : ''}`);
  }
  if (platform.timings.length > 0) console.log(formatStartUpTimings(platform.timings));
  console.log(`Ready in ${((Date.now() - started) / 1000).toFixed(1)} s. Press Ctrl-C to stop.`);
}

/** A progress bar announced and started on its first report, stopped when done reaches total. */
function lazyBar(announce: string, label: string, unit: string): (done: number, total: number) => void {
  let bar: SingleBar | undefined;
  return (done, total) => {
    if (!bar) {
      console.log(announce);
      bar = new SingleBar({ format: `  ${label} [{bar}] {value}/{total} ${unit}`, etaBuffer: 50 });
      bar.start(total, 0);
    }
    bar.update(done);
    if (done === total) bar.stop();
  };
}

/** Gateway first (it calls the subgraphs), then the subgraphs, then the store; exits with `code` once done. */
function shutDown(platform: RunningPlatform, gateway?: GatewayThread, code = 0): void {
  (async () => {
    // The subgraphs and the store close even when the gateway failed to drain; that failure is then reported.
    try {
      await gateway?.close();
    } finally {
      await platform.close();
    }
  })().then(
    () => {
      if (code === 0) console.log('Stopped cleanly.');
      process.exit(code);
    },
    (err: unknown) => {
      console.error('Error while stopping:', err);
      process.exit(1);
    },
  );
}

/** Exit code of a start (or a run) stopped because the store's disk is full. */
const EXIT_STORAGE_FULL = 2;

/**
 * An error nothing handled ends the process with a short report: one line when the store's disk is full
 * (exit code 2), else the error's message and stack (exit code 1). Node's own report would print the
 * source line where it was thrown, which for a bundled library is a whole minified file.
 */
function exitOnFatalErrors(config: Config): void {
  const fatal = (err: unknown) => {
    if (isStorageFull(err)) {
      const full = err instanceof StorageFullError ? err : StorageFullError.of({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      console.error(`tradegraph: ${full.message}`);
      process.exit(EXIT_STORAGE_FULL);
    }
    console.error(`tradegraph: fatal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
}

main().catch((err: unknown) => {
  if (err instanceof StorageFullError) {
    console.error(`tradegraph: ${err.message}`);
    process.exit(EXIT_STORAGE_FULL);
  }
  console.error(err instanceof ConfigError ? err.message : `Failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
