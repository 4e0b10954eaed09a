/**
 * The security view: a symbol's daily chart with its stage history, the shown snapshot's patterns and
 * levels, and a side panel with the stage, the signal and the snapshot's measured evidence. Without a
 * partner token the platform answers only the demo symbol's latest public fields: the view shows
 * those and says what signing in adds (bars, history, dated snapshots, partner-only fields).
 */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { execute, type ConsoleError } from '../api';
import { ErrorList } from '../errors';
import { navigate } from '../location';
import { useSession } from '../session';
import {
  ConsoleSecurityBarsDocument,
  ConsoleSecurityDocument,
  ConsoleSecuritySnapshotsDocument,
  type ConsolePatternFragment,
  type ConsoleSecurityQuery,
  type ConsoleStateEvidenceFragment,
} from '../../generated/graphql';
import {
  movingAverageOf,
  patternColour,
  patternGeometry,
  patternLevels,
  snapshotDateFor,
  stageBands,
  stageSegments,
  STAGES,
  STAGE_STYLE,
  supportResistance,
  visibleRange,
  weeklyCloses,
  type DailyBar,
  type Level,
  type StagePoint,
} from '../chart/overlays';
import { formatEstimate } from '../chart/format';
import { formatPercent, formatPrice, formatProbability, formatScore, formatSignedPercent, humanize, MISSING, NOT_MEASURED } from '../format';
import { collectPages, historyFrom, type Page } from '../chart/pages';
import { CHART_COLOURS, PriceChart, type ChartPattern } from '../chart/PriceChart';
import './security.css';

/** Page sizes at the API's caps (bars: at most 2000, snapshots: at most 100) and how many pages to read at most. */
const BARS_PAGE = 2000;
const BARS_MAX_PAGES = 10;
const SNAPSHOTS_PAGE = 100;
const SNAPSHOTS_MAX_PAGES = 60;
/**
 * How far before the shown snapshot the history window starts (then back to that year's 1 January):
 * the 30-week average's warm-up and the months the chart opens on, with room to scroll back.
 */
const LOOKBACK_DAYS = 3 * 365;
/** Days of bars a window allows past the latest snapshot (bars may run ahead of the analysis). */
const BARS_AFTER_LATEST_DAYS = 366;

type Snapshot = NonNullable<NonNullable<ConsoleSecurityQuery['security']>['analysis']>;

/** The main answer, with the symbol and date it was asked for (an answer for another symbol is never shown). */
interface MainState {
  symbol: string | null;
  date: string | null;
  loading: boolean;
  data: ConsoleSecurityQuery | null;
  errors: ConsoleError[];
}

/** A connection's window read in full (or up to the bound), keyed by what it was read for, with the errors met on the way. */
interface History<T> {
  /** `symbol|from` of the reading this state belongs to; null before any. */
  key: string | null;
  loading: boolean;
  nodes: T[];
  truncated: boolean;
  errors: ConsoleError[];
}

const EMPTY_HISTORY: History<never> = { key: null, loading: false, nodes: [], truncated: false, errors: [] };

/** A page fetcher: the cursor and the signal that cancels the call. */
type FetchPage<T> = (after: string | null, signal: AbortSignal) => Promise<{ page: Page<T> | null; errors: ConsoleError[] }>;

/**
 * Reads every page of one of the symbol's connections from `from` on, while `key` is set (a token is
 * present and the window is known). One AbortController per reading: a new key or unmounting aborts
 * the calls under way, and the answer of an old reading is never stored.
 */
function useHistory<T>(key: string | null, maxPages: number, fetchPage: FetchPage<T>): History<T> {
  const [state, setState] = useState<History<T>>(EMPTY_HISTORY);
  const fetcher = useRef(fetchPage);
  fetcher.current = fetchPage;
  useEffect(() => {
    if (key === null) {
      setState(EMPTY_HISTORY);
      return;
    }
    const controller = new AbortController();
    setState({ ...EMPTY_HISTORY, key, loading: true });
    const errors: ConsoleError[] = [];
    void collectPages(
      async (after) => {
        const answer = await fetcher.current(after, controller.signal);
        errors.push(...answer.errors);
        return answer.page;
      },
      maxPages,
      controller.signal,
    ).then((result) => {
      if (!result.aborted) setState({ key, loading: false, nodes: result.nodes, truncated: result.truncated, errors });
    });
    return () => controller.abort();
  }, [key, maxPages]);
  // A state left from another key (the effect has not run yet) is not this reading's.
  return state.key === key ? state : key === null ? EMPTY_HISTORY : { ...EMPTY_HISTORY, key, loading: true };
}

export function SecurityView({ symbol, date }: { symbol: string; date: string | null }) {
  const { token, settings } = useSession();
  const endpoint = settings.endpoint;
  const heading = useRef<HTMLHeadingElement>(null);
  /** The symbol the symbol form asked for: its heading takes the focus once its answer is in. */
  const focusOnLoad = useRef<string | null>(null);

  const [mainState, setMain] = useState<MainState>({ symbol: null, date: null, loading: true, data: null, errors: [] });
  useEffect(() => {
    const controller = new AbortController();
    // Another symbol's answer is cleared at once; the same symbol's stays on screen until the new date's arrives.
    setMain((m) => (m.symbol === symbol ? { ...m, loading: true } : { symbol, date, loading: true, data: null, errors: [] }));
    void execute(ConsoleSecurityDocument, { symbol, date, partner: token !== null }, token, { endpoint, signal: controller.signal }).then((answer) => {
      if (!controller.signal.aborted) setMain({ symbol, date, loading: false, data: answer.data, errors: answer.errors });
    });
    return () => controller.abort();
  }, [symbol, date, token, endpoint]);
  // Before the effect above has run for a new symbol, the state still holds the old one's: never shown.
  const main: MainState = mainState.symbol === symbol ? mainState : { symbol, date, loading: true, data: null, errors: [] };

  const security = main.data?.security ?? null;
  const snapshot = security?.analysis ?? null;
  const latest = security?.latest?.analysisDate ?? null;
  const oldest = security?.oldest?.nodes[0]?.analysisDate ?? null;

  // The history window: known once the main answer for this symbol is in (it carries the latest date).
  const answered = main.data !== null || (!main.loading && main.symbol === symbol);
  const readable = token !== null && answered && security !== null;
  const barsFrom = historyFrom(date, latest, { lookbackDays: LOOKBACK_DAYS, capacity: BARS_PAGE * BARS_MAX_PAGES, afterLatestDays: BARS_AFTER_LATEST_DAYS });
  const snapshotsFrom = historyFrom(date, latest, { lookbackDays: LOOKBACK_DAYS, capacity: SNAPSHOTS_PAGE * SNAPSHOTS_MAX_PAGES });
  const barsKey = readable ? `${symbol}|${barsFrom ?? ''}|${endpoint}|${token}` : null;
  const snapshotsKey = readable ? `${symbol}|${snapshotsFrom ?? ''}|${endpoint}|${token}` : null;

  const bars = useHistory<DailyBar>(barsKey, BARS_MAX_PAGES, async (after, signal) => {
    const answer = await execute(ConsoleSecurityBarsDocument, { symbol, from: barsFrom, first: BARS_PAGE, after }, token, { endpoint, signal });
    const c = answer.data?.security?.bars;
    return { page: c ? { nodes: c.nodes, hasNextPage: c.pageInfo.hasNextPage, endCursor: c.pageInfo.endCursor } : null, errors: answer.errors };
  });
  const history = useHistory<StagePoint>(snapshotsKey, SNAPSHOTS_MAX_PAGES, async (after, signal) => {
    const answer = await execute(ConsoleSecuritySnapshotsDocument, { symbol, from: snapshotsFrom, first: SNAPSHOTS_PAGE, after }, token, { endpoint, signal });
    const c = answer.data?.security?.snapshots;
    const nodes = c?.nodes.map((n) => ({ date: n.analysisDate, stage: n.stage })) ?? [];
    return { page: c ? { nodes, hasNextPage: c.pageInfo.hasNextPage, endCursor: c.pageInfo.endCursor } : null, errors: answer.errors };
  });
  const historyDates = useMemo(() => history.nodes.map((s) => s.date), [history.nodes]);
  /** Whether the loaded history reaches back to the oldest stored snapshot (else dates before its first are not known here). */
  const fromOldest = oldest !== null && historyDates.length > 0 && historyDates[0] <= oldest;

  // A date without a snapshot of its own (a weekend, a holiday) shows the one in force on it, found in
  // this symbol's history of this window (the key says so; a reading under way or another symbol's is not used).
  useEffect(() => {
    if (!date || history.key !== snapshotsKey || history.loading || historyDates.length === 0) return;
    if (date < historyDates[0] && !fromOldest) return;
    const snapped = snapshotDateFor(historyDates, date);
    if (snapped && snapped !== date) navigate({ view: 'security', symbol, date: snapped });
  }, [date, symbol, history, historyDates, snapshotsKey, fromOldest]);

  // After the symbol form, the new symbol's heading takes the focus once it has loaded.
  useEffect(() => {
    if (focusOnLoad.current === symbol && main.symbol === symbol && !main.loading) {
      focusOnLoad.current = null;
      heading.current?.focus();
    }
  }, [symbol, main]);

  const loading = main.loading || bars.loading || history.loading;
  const errors = [...main.errors, ...bars.errors, ...history.errors];

  return (
    <section aria-labelledby="security-title" aria-busy={loading ? 'true' : 'false'} className="security">
      <div className="security-head">
        <h2 id="security-title" ref={heading} tabIndex={-1}>
          {symbol}
          {security && <span className="security-name"> {security.name}</span>}
        </h2>
        {security && (
          <p className="security-meta">
            {[security.sector, humanize(security.assetType), security.dataSource === 'SYNTHETIC' ? 'synthetic demo data' : 'imported data'].filter(Boolean).join(' · ')}
          </p>
        )}
      </div>
      <SecurityControls
        symbol={symbol}
        date={date}
        snapshotDates={historyDates}
        fromOldest={fromOldest}
        bounds={{ min: oldest ?? historyDates[0] ?? null, max: latest ?? historyDates[historyDates.length - 1] ?? null }}
        shownDate={snapshot?.analysisDate ?? null}
        onSymbol={(next) => {
          focusOnLoad.current = next;
        }}
      />
      {loading && <p className="loading">Loading {symbol}…</p>}
      <ErrorList errors={errors} />
      {!token && (
        <p className="signin-note" data-testid="signin-note">
          Signed out: the platform answers only the demo symbol ({settings.demoSymbol}) and only its latest snapshot's public fields. Sign in to see the daily bars and the chart,
          the stage history, snapshots of other dates and symbols, the stage detail and the signal's reasons.
          {date && ` The date ${date} is ignored until you sign in.`}
        </p>
      )}
      {!main.loading && main.data && !security && <p className="notice">No security named {symbol} is known.</p>}
      {!main.loading && security && !snapshot && <p className="notice">{date ? `No snapshot of ${symbol} is stored for ${date}. Pick another date.` : `No snapshot of ${symbol} is stored.`}</p>}
      <SecurityBody symbol={symbol} snapshot={snapshot} bars={bars} history={history} signedIn={token !== null} />
    </section>
  );
}

/** The symbol form and the snapshot date picker (bounded by the oldest and latest stored snapshots when known). */
function SecurityControls({
  symbol,
  date,
  snapshotDates,
  fromOldest,
  bounds,
  shownDate,
  onSymbol,
}: {
  symbol: string;
  date: string | null;
  /** The loaded window's snapshot dates, for snapping a picked day to the snapshot in force on it. */
  snapshotDates: string[];
  /** Whether `snapshotDates` starts at the oldest stored snapshot. */
  fromOldest: boolean;
  bounds: { min: string | null; max: string | null };
  shownDate: string | null;
  onSymbol(symbol: string): void;
}) {
  const [typed, setTyped] = useState(symbol);
  useEffect(() => setTyped(symbol), [symbol]);
  const [picked, setPicked] = useState(date ?? shownDate ?? '');
  useEffect(() => setPicked(date ?? shownDate ?? ''), [date, shownDate]);
  const min = bounds.min ?? undefined;
  const max = bounds.max ?? undefined;

  const showSymbol = (e: FormEvent) => {
    e.preventDefault();
    const next = typed.trim().toUpperCase();
    if (!next) return;
    onSymbol(next);
    navigate({ view: 'security', symbol: next, date: null });
  };
  /**
   * Goes to the stored snapshot in force on `value` (the latest on or before it). A day before the
   * loaded window goes as picked: the window moves there and the view snaps it once that history is in.
   */
  const showDate = (value: string) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return;
    const known = snapshotDates.length > 0 && (value >= snapshotDates[0] || fromOldest);
    const target = known ? (snapshotDateFor(snapshotDates, value) ?? value) : value;
    if (target !== date) navigate({ view: 'security', symbol, date: target });
  };
  const inRange = (value: string) => (!min || value >= min) && (!max || value <= max);

  return (
    <div className="security-controls">
      <form onSubmit={showSymbol} className="control" role="search" aria-label="Security">
        <label htmlFor="symbol-input">Symbol</label>
        <input id="symbol-input" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} size={8} />
        <button type="submit">Show</button>
      </form>
      <form
        className="control"
        aria-label="Snapshot"
        onSubmit={(e) => {
          e.preventDefault();
          showDate(picked);
        }}
      >
        <label htmlFor="snapshot-date">Snapshot date</label>
        <input
          type="date"
          id="snapshot-date"
          value={picked}
          min={min}
          max={max}
          aria-describedby="snapshot-date-hint"
          onChange={(e) => {
            setPicked(e.target.value);
            // Typing a year passes through dates like 0002-…; only a date within the history navigates at once.
            if (inRange(e.target.value) && snapshotDates.length > 0) showDate(e.target.value);
          }}
        />
        <button type="submit">Go</button>
        {date && (
          <button type="button" className="secondary" onClick={() => navigate({ view: 'security', symbol, date: null })}>
            Latest
          </button>
        )}
        <span id="snapshot-date-hint" className="hint">
          {min && max ? `Snapshots from ${min} to ${max}; a day without one shows the one before it.` : 'The latest snapshot is shown.'}
        </span>
      </form>
    </div>
  );
}

/**
 * What range of a history the chart shows. The window ends at the latest stored data and starts a few
 * years before the shown snapshot, so older data is left out on purpose; a reading stopped by the
 * page bound (not expected: the window is sized to fit) says where it stopped.
 */
function windowNote(what: string, dates: readonly string[], truncated: boolean, bound: number): string {
  if (dates.length === 0) return '';
  const range = `${what} from ${dates[0]} to ${dates[dates.length - 1]}`;
  return truncated ? `${range}: reading stopped at ${bound}, later ones are not shown.` : `${range}.`;
}

/** A pattern of the snapshot with what the chart and the list need. */
interface ShownPattern {
  key: string;
  pattern: ConsolePatternFragment;
  colour: string;
  best: boolean;
  chart: ChartPattern;
}

function patternsOf(snapshot: Snapshot | null): ShownPattern[] {
  if (!snapshot) return [];
  const best = snapshot.bestPattern;
  const list = snapshot.detectedPatterns ?? (best ? [best] : []);
  const same = (a: ConsolePatternFragment, b: ConsolePatternFragment | null) => b !== null && a.type === b.type && a.startDate === b.startDate && a.endDate === b.endDate;
  return list.map((pattern, i) => {
    const key = `${i}-${pattern.type}-${pattern.startDate ?? ''}`;
    const colour = patternColour(i);
    return {
      key,
      pattern,
      colour,
      best: same(pattern, best),
      chart: { key, colour, title: humanize(pattern.type), geometry: patternGeometry(pattern.keyPoints), levels: patternLevels(pattern), labelled: true },
    };
  });
}

function SecurityBody({ symbol, snapshot, bars, history, signedIn }: { symbol: string; snapshot: Snapshot | null; bars: History<DailyBar>; history: History<StagePoint>; signedIn: boolean }) {
  const patterns = useMemo(() => patternsOf(snapshot), [snapshot]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setHidden(new Set()), [snapshot]);
  const shownPatterns = useMemo(() => {
    const shown = patterns.filter((p) => !hidden.has(p.key));
    // Key point labels of many overlapping patterns would cover each other: with more than two shown, only the best one's are written.
    return shown.map((p) => ({ ...p.chart, labelled: shown.length <= 2 || p.best }));
  }, [patterns, hidden]);
  const levels = useMemo(() => supportResistance(snapshot?.supportLevels, snapshot?.resistanceLevels), [snapshot]);
  const weekly = useMemo(() => weeklyCloses(bars.nodes), [bars.nodes]);
  const ma10 = useMemo(() => movingAverageOf(weekly, 10), [weekly]);
  const ma30 = useMemo(() => movingAverageOf(weekly, 30), [weekly]);
  const barDates = useMemo(() => bars.nodes.map((b) => b.date), [bars.nodes]);
  const bands = useMemo(() => stageBands(barDates, history.nodes), [barDates, history.nodes]);
  const segments = useMemo(() => stageSegments(history.nodes), [history.nodes]);
  const focus = useMemo(() => (snapshot ? { date: snapshot.analysisDate, range: visibleRange(barDates, snapshot.analysisDate) } : null), [snapshot, barDates]);
  const shownStages = STAGES.filter((s) => bands.some((b) => b.stage === s));

  const first = barDates[0];
  const last = barDates[barDates.length - 1];
  const chartLabel =
    `${symbol} daily candlesticks with volume, ${first ?? ''} to ${last ?? ''}` +
    (snapshot ? `; snapshot of ${snapshot.analysisDate}: ${humanize(snapshot.stage)}${snapshot.stageStrength ? ` (${humanize(snapshot.stageStrength).toLowerCase()})` : ''}` : '') +
    `; ${shownPatterns.length} pattern${shownPatterns.length === 1 ? '' : 's'} and ${levels.length} support or resistance level${levels.length === 1 ? '' : 's'} drawn` +
    (segments.length > 0 ? `; stage shading over ${segments.length} stage run${segments.length === 1 ? '' : 's'}` : '');

  const toggle = (key: string) =>
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  return (
    <div className="security-layout">
      <div className="security-chart">
        {bars.nodes.length > 0 ? (
          <figure className="chart-figure">
            <PriceChart bars={bars.nodes} ma10={ma10} ma30={ma30} bands={bands} patterns={shownPatterns} levels={levels} focus={focus} label={chartLabel} />
            <figcaption className="chart-legend" aria-label="Chart legend">
              <span className="legend-item">
                <span className="swatch line" style={{ backgroundColor: CHART_COLOURS.ma10 }} aria-hidden="true" /> 10-week MA (weekly closes)
              </span>
              <span className="legend-item">
                <span className="swatch line" style={{ backgroundColor: CHART_COLOURS.ma30 }} aria-hidden="true" /> 30-week MA (weekly closes)
              </span>
              <span className="legend-item">
                <span className="swatch line dashed-support" aria-hidden="true" /> support
              </span>
              <span className="legend-item">
                <span className="swatch line dashed-resistance" aria-hidden="true" /> resistance
              </span>
              {shownStages.map((s) => (
                <span key={s} className="legend-item">
                  <span className="swatch band" style={{ backgroundColor: STAGE_STYLE[s].swatch }} aria-hidden="true" /> {STAGE_STYLE[s].label} ({STAGE_STYLE[s].meaning})
                </span>
              ))}
              {signedIn && !history.loading && history.nodes.length === 0 && <span className="legend-item">No stage history stored: no shading.</span>}
              <span className="legend-item credit">
                Charting by&nbsp;<a href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer">TradingView</a>&nbsp;Lightweight Charts
              </span>
            </figcaption>
            <p className="muted chart-range" data-testid="chart-range">
              {windowNote('Daily bars', barDates, bars.truncated, BARS_PAGE * BARS_MAX_PAGES)}{' '}
              {history.nodes.length > 0 && windowNote('Stage shading from snapshots', history.nodes.map((h) => h.date), history.truncated, SNAPSHOTS_PAGE * SNAPSHOTS_MAX_PAGES)}
            </p>
          </figure>
        ) : (
          <p className="chart-placeholder">
            {signedIn ? (bars.loading ? 'Loading the daily bars…' : 'No daily bars to chart.') : 'The chart needs the daily bars, which only partners can read: sign in to see it.'}
          </p>
        )}
      </div>
      {snapshot && (
        <aside className="security-side" aria-label="Snapshot">
          <StagePanel snapshot={snapshot} signedIn={signedIn} />
          <EvidencePanel snapshot={snapshot} />
        </aside>
      )}
      {snapshot && (
        <div className="security-lists">
          <PatternList patterns={patterns} hidden={hidden} onToggle={toggle} charted={bars.nodes.length > 0} />
          <Levels snapshot={snapshot} levels={levels} />
        </div>
      )}
    </div>
  );
}

/** The snapshot's patterns; those drawn on the chart (`charted`) each with a checkbox showing or hiding its overlay. */
function PatternList({ patterns, hidden, onToggle, charted }: { patterns: ShownPattern[]; hidden: ReadonlySet<string>; onToggle(key: string): void; charted: boolean }) {
  return (
    <section className="panel" data-testid="pattern-list" aria-labelledby="patterns-title">
      <h3 id="patterns-title">Detected patterns</h3>
      {!charted && patterns.length > 0 && <p className="muted">Listed only: without the daily bars there is no chart to draw them on.</p>}
      {patterns.length === 0 ? (
        <p>No patterns detected in this snapshot.</p>
      ) : (
        <ul className="pattern-list">
          {patterns.map(({ key, pattern, colour, best, chart }) => {
            const id = `pattern-toggle-${key}`;
            const drawn = charted && (chart.geometry.points.length > 0 || chart.levels.length > 0);
            return (
              <li key={key} data-testid={drawn ? 'pattern-overlay' : 'pattern-undrawn'} className="pattern">
                <div className="pattern-head">
                  {drawn && <input type="checkbox" id={id} checked={!hidden.has(key)} onChange={() => onToggle(key)} />}
                  {drawn && <span className="swatch line thick" style={{ backgroundColor: colour }} aria-hidden="true" />}
                  {drawn ? (
                    <label htmlFor={id} className="pattern-name">
                      {humanize(pattern.type)}
                      {best && <span className="badge">best</span>}
                      <span className="sr-only"> (show on the chart)</span>
                    </label>
                  ) : (
                    <span className="pattern-name">
                      {humanize(pattern.type)}
                      {best && <span className="badge">best</span>}
                    </span>
                  )}
                </div>
                <dl className="facts">
                  <dt>Status</dt>
                  <dd>{humanize(pattern.status)}</dd>
                  <dt>Direction</dt>
                  <dd>{pattern.direction ?? MISSING}</dd>
                  <dt>Confidence</dt>
                  <dd>
                    {formatProbability(pattern.confidence)}
                    {pattern.rawConfidence !== null && <span className="muted"> (detector score {formatScore(pattern.rawConfidence)})</span>}
                  </dd>
                  <dt>Target</dt>
                  <dd>{formatPrice(pattern.priceTarget)}</dd>
                  <dt>Breakout</dt>
                  <dd>{formatPrice(pattern.breakoutLevel)}</dd>
                  <dt>Invalidation</dt>
                  <dd>{formatPrice(pattern.invalidationLevel)}</dd>
                  <dt>Dates</dt>
                  <dd>
                    {pattern.startDate ?? MISSING} to {pattern.endDate ?? MISSING}
                  </dd>
                </dl>
                {(pattern.keyPoints?.length ?? 0) > 0 && (
                  <details>
                    <summary>Key points ({pattern.keyPoints!.length})</summary>
                    <ul className="key-points">
                      {pattern.keyPoints!.map((kp, i) => (
                        <li key={i}>
                          {kp.label}: {kp.date ?? 'no date'} at {formatPrice(kp.price)}
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Levels({ snapshot, levels }: { snapshot: Snapshot; levels: readonly Level[] }) {
  const support = levels.filter((l) => l.kind === 'support');
  const resistance = levels.filter((l) => l.kind === 'resistance');
  const targets = snapshot.priceTargets ?? [];
  return (
    <section className="panel" data-testid="levels" aria-labelledby="levels-title">
      <h3 id="levels-title">Support and resistance</h3>
      <div className="levels">
        <div>
          <h4>Support</h4>
          {support.length === 0 ? <p>None in this snapshot.</p> : <ul className="level-list">{support.map((l, i) => <li key={l.price}>S{i + 1}: {formatPrice(l.price)}</li>)}</ul>}
        </div>
        <div>
          <h4>Resistance</h4>
          {resistance.length === 0 ? <p>None in this snapshot.</p> : <ul className="level-list">{resistance.map((l, i) => <li key={l.price}>R{i + 1}: {formatPrice(l.price)}</li>)}</ul>}
        </div>
      </div>
      {targets.length > 0 && (
        <>
          <h4>Price targets</h4>
          <ul className="targets">
            {targets.map((t, i) => (
              <li key={i}>
                {formatPrice(t.price)} ({t.direction ?? MISSING}, {t.source ?? MISSING}
                {t.basis ? `: ${humanize(t.basis).toLowerCase()}` : ''}
                {t.distancePercent !== null ? `, ${formatSignedPercent(t.distancePercent / 100)} away` : ''})
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function StagePanel({ snapshot, signedIn }: { snapshot: Snapshot; signedIn: boolean }) {
  const detail = snapshot.stageDetail;
  const sata = snapshot.indicators?.sataScore ?? detail?.sataScore ?? null;
  return (
    <section className="panel" data-testid="stage-panel" aria-labelledby="stage-title">
      <h3 id="stage-title">Stage and signal</h3>
      <dl className="facts">
        <dt>Snapshot date</dt>
        <dd>{snapshot.analysisDate}</dd>
        <dt>Stage</dt>
        <dd data-testid="stage">
          {humanize(snapshot.stage)}
          {detail && ` (${detail.subStage}, ${detail.weeksInStage} week${detail.weeksInStage === 1 ? '' : 's'})`}
        </dd>
        <dt>Strength</dt>
        <dd>{humanize(snapshot.stageStrength)}</dd>
        <dt>SATA score</dt>
        <dd>{sata === null ? NOT_MEASURED : `${sata} / 10`}</dd>
        <dt>Price</dt>
        <dd>{formatPrice(snapshot.price)}</dd>
        <dt>10-week MA</dt>
        <dd>{formatPrice(snapshot.indicators?.sma10w ?? detail?.ma10w)}</dd>
        <dt>30-week MA</dt>
        <dd>{formatPrice(snapshot.indicators?.sma30w ?? detail?.ma30w)}</dd>
        <dt>Signal</dt>
        <dd data-testid="signal">
          {snapshot.signal ?? MISSING}
          {snapshot.signal && <span className="muted"> (chance right: {formatProbability(snapshot.confidence)})</span>}
        </dd>
        {snapshot.enhancedSignal && (
          <>
            <dt>Enhanced signal</dt>
            <dd>
              {snapshot.enhancedSignal.signal} <span className="muted">(score {formatScore(snapshot.enhancedSignal.score)}, chance right: {formatProbability(snapshot.enhancedSignal.confidence)})</span>
            </dd>
          </>
        )}
      </dl>
      <h4>Why this signal</h4>
      {snapshot.signalReasons ? (
        snapshot.signalReasons.length > 0 ? (
          <ul className="reasons">{snapshot.signalReasons.map((r, i) => <li key={i}>{r}</li>)}</ul>
        ) : (
          <p>No reasons given.</p>
        )
      ) : (
        <p className="muted">{signedIn ? 'Not in this snapshot.' : 'The reasons are for partners: sign in to see them.'}</p>
      )}
    </section>
  );
}

const EVIDENCE_OUTPUTS: Array<{ key: 'stage' | 'signal' | 'sataBucket' | 'bestPattern'; title: string }> = [
  { key: 'stage', title: 'Stage' },
  { key: 'signal', title: 'Signal' },
  { key: 'sataBucket', title: 'SATA bucket' },
  { key: 'bestPattern', title: 'Best pattern' },
];

function EvidencePanel({ snapshot }: { snapshot: Snapshot }) {
  const evidence = snapshot.evidence;
  return (
    <section className="panel" data-testid="evidence-panel" aria-labelledby="evidence-title">
      <h3 id="evidence-title">Measured evidence</h3>
      {!evidence ? (
        <p>{NOT_MEASURED}: the answer carried no evidence for this snapshot.</p>
      ) : evidence.status !== 'MEASURED' ? (
        <p data-testid="evidence-status">
          {humanize(evidence.status)}: {evidence.reason ?? 'no reason given'}
        </p>
      ) : (
        <>
          <p className="muted">
            Out-of-sample record as of {evidence.asOf ?? MISSING}
            {evidence.universe && `, ${evidence.universe.symbols} symbols from ${evidence.universe.firstDate}, excess over the ${evidence.universe.benchmark} universe`}.
          </p>
          {EVIDENCE_OUTPUTS.map(({ key, title }) => (
            <StateRecord key={key} title={title} record={evidence[key]} />
          ))}
        </>
      )}
    </section>
  );
}

function StateRecord({ title, record }: { title: string; record: ConsoleStateEvidenceFragment | null }) {
  if (!record) {
    return (
      <div className="state-record">
        <h4>{title}</h4>
        <p className="muted">{NOT_MEASURED} (this snapshot has no {title.toLowerCase()})</p>
      </div>
    );
  }
  const tf = record.targetFirst;
  return (
    <div className="state-record">
      <h4>
        {title}: <span className="state">{record.state}</span>
      </h4>
      <dl className="facts">
        <dt>Outcomes</dt>
        {/* Counts as the API answers them, plain integers without separators. */}
        <dd>
          n = {record.n} on {record.dates} date{record.dates === 1 ? '' : 's'}
        </dd>
        <dt>Hit rate</dt>
        <dd>{formatEstimate(record.hitRate)}</dd>
        <dt>Mean excess 20d</dt>
        <dd>{formatEstimate(record.meanExcess20d, true)}</dd>
        <dt>Mean excess 60d</dt>
        <dd>{formatEstimate(record.meanExcess60d, true)}</dd>
        {tf && (
          <>
            <dt>Target first</dt>
            <dd>
              {formatEstimate(tf)} <span className="muted">(n = {tf.n}{tf.placebo !== null ? `, placebo ${formatPercent(tf.placebo)}` : ''})</span>
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}
