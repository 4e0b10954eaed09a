/**
 * HTTP load for the REST throughput benchmarks: a child process (the other core) opens N keep-alive
 * connections, each sending its next request as soon as the previous answer arrived, runs a warm-up,
 * then measures a fixed window. The server under test runs in the calling process, so the CPU time it
 * spends in the window is measured apart from the load's. `runRounds` repeats a list of scenarios in
 * rounds, the first scenario of each round being the baseline measured again right before the others,
 * and returns each scenario's ratios to it (report their median: a busy moment on the machine then
 * skews one round only).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoadJob {
  /** Requested in turn, one per request (one URL: always the same request). */
  urls: string[];
  headers: Record<string, string>;
  /** GET unless set. */
  method?: string;
  /** Sent with every request (with its Content-Length); set the content-type in `headers`. */
  body?: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** CPU time the server process spent during the measuring window, per answered request (microseconds). */
  serverCpuUs?: number;
  requests: number;
  errors: number;
  non200: number;
  seconds: number;
  p50: number;
  p99: number;
  bytes: number;
}

// ---------------------------------------------------------------------------------------------------------
// Load generator (child process)
// ---------------------------------------------------------------------------------------------------------

/**
 * One keep-alive TCP connection per virtual user, each sending its next request when the previous
 * response is complete. Requests are pre-built bytes and responses are framed by Content-Length (the
 * servers measured send it), so the generator costs far less per request than the servers it measures.
 */
async function drive(job: LoadJob, mark: (phase: 'start' | 'end') => void): Promise<LoadResult> {
  const target = new URL(job.urls[0]);
  const body = job.body === undefined ? undefined : Buffer.from(job.body);
  const requests = job.urls.map((url) => {
    const u = new URL(url);
    const head = [
      `${job.method ?? 'GET'} ${u.pathname}${u.search} HTTP/1.1`,
      `host: ${u.host}`,
      'connection: keep-alive',
      ...Object.entries(job.headers).map(([k, v]) => `${k}: ${v}`),
      ...(body ? [`content-length: ${body.length}`] : []),
    ];
    const bytes = Buffer.from(`${head.join('\r\n')}\r\n\r\n`);
    return body ? Buffer.concat([bytes, body]) : bytes;
  });
  let next = 0;
  const latencies: number[] = [];
  let errors = 0;
  let non200 = 0;
  let bytes = 0;
  let measuring = false;
  let stopped = false;

  const user = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(Number(target.port), target.hostname);
      socket.setNoDelay(true);
      let buffer: Buffer = Buffer.alloc(0);
      let t0 = 0;
      const send = () => {
        if (stopped) {
          socket.end();
          return resolve();
        }
        t0 = performance.now();
        socket.write(requests[next]);
        next = (next + 1) % requests.length;
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headers = buffer.subarray(0, end).toString('latin1');
          const length = /\r\ncontent-length: *(\d+)/i.exec(headers);
          if (!length) {
            errors++;
            socket.destroy();
            return resolve();
          }
          const total = end + 4 + Number(length[1]);
          if (buffer.length < total) return;
          if (measuring) {
            latencies.push(performance.now() - t0);
            bytes += total;
            if (!headers.startsWith('HTTP/1.1 200')) non200++;
          }
          buffer = buffer.subarray(total);
          send();
        }
      });
      socket.on('error', () => {
        if (measuring) errors++;
        resolve();
      });
      socket.on('close', () => resolve());
    });

  const users = Array.from({ length: job.connections }, user);
  await new Promise((r) => setTimeout(r, job.warmupMs));
  measuring = true;
  mark('start');
  const start = performance.now();
  await new Promise((r) => setTimeout(r, job.durationMs));
  measuring = false;
  mark('end');
  const seconds = (performance.now() - start) / 1000;
  stopped = true;
  await Promise.all(users);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : NaN);
  return { requests: latencies.length, errors, non200, seconds, p50: pct(0.5), p99: pct(0.99), bytes };
}

const LOAD_FLAG = '--load-generator';

if (process.argv.includes(LOAD_FLAG)) {
  process.once('message', (job: LoadJob) => {
    void drive(job, (phase) => process.send?.({ phase })).then((result) => process.send?.({ result }, () => process.exit(0)));
  });
}

/** Runs one load in a child process (so the server's CPU time can be measured apart from the load's). */
export function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [LOAD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let cpuAtStart: NodeJS.CpuUsage | undefined;
    let serverCpu = 0;
    child.on('message', (message: { phase?: 'start' | 'end'; result?: LoadResult }) => {
      if (message.phase === 'start') cpuAtStart = process.cpuUsage();
      if (message.phase === 'end' && cpuAtStart) {
        const used = process.cpuUsage(cpuAtStart);
        serverCpu = used.user + used.system;
      }
      if (message.result) resolve({ ...message.result, serverCpuUs: message.result.requests ? serverCpu / message.result.requests : NaN });
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
    });
    child.send(job);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Rounds against a baseline
// ---------------------------------------------------------------------------------------------------------

export interface Scenario {
  label: string;
  job: LoadJob;
}

export interface RoundsResult {
  /** Per scenario, per round: its throughput / the baseline's (the baseline's own row is all 1). */
  ratios: number[][];
  /** Per scenario, per round: the baseline's server CPU per request / its own. */
  cpuRatios: number[][];
  /** Per scenario, per round: the measured load. */
  results: LoadResult[][];
}

/** The middle value (the lower of the two middle ones for an even count). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * Measures the scenarios `rounds` times, in order; scenario 0 is the baseline of its round. Prints one
 * line per scenario and round (`labelWidth` pads the labels).
 */
export async function runRounds(scenarios: readonly Scenario[], rounds: number, labelWidth = 50): Promise<RoundsResult> {
  const ratios = scenarios.map(() => [] as number[]);
  const cpuRatios = scenarios.map(() => [] as number[]);
  const results = scenarios.map(() => [] as LoadResult[]);
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round}`);
    let base = NaN;
    let baseCpu = NaN;
    for (const [i, scenario] of scenarios.entries()) {
      const r = await load(scenario.job);
      const rps = r.requests / r.seconds;
      if (i === 0) [base, baseCpu] = [rps, r.serverCpuUs ?? NaN];
      ratios[i].push(rps / base);
      cpuRatios[i].push(baseCpu / (r.serverCpuUs ?? NaN));
      results[i].push(r);
      const problems = r.errors || r.non200 ? `  (${r.errors} errors, ${r.non200} non-200)` : '';
      console.log(
        `  ${scenario.label.padEnd(labelWidth)} ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2).padStart(5)} ms  ` +
          `server CPU ${(r.serverCpuUs ?? NaN).toFixed(0).padStart(4)} us/req  ${((100 * rps) / base).toFixed(0).padStart(3)}% of baseline${problems}`,
      );
    }
  }
  return { ratios, cpuRatios, results };
}
