/**
 * Kelly's measured odds through the store (kelly-odds-store.ts) and the optimize path: refresh computes the
 * month-end tables from stored snapshots and bars once, a table as of D does not change when bars and
 * snapshots after D are added, and an optimize sizes only the state whose target is hit above its no-edge
 * odds, with notes saying where p came from; without odds the demo body gets no rows. Real PGlite store.
 */
import { AllocationService, DEMO_OPTIMIZE_BODY } from '../../../subgraphs/allocation/service.js';
import { candidateOddsFor, refreshCandidateOdds } from '../../../subgraphs/allocation/kelly-odds-store.js';
import { PIPELINE_VERSION } from '../../../subgraphs/analysis/engine/document.js';
import type { Bar } from '../../../subgraphs/analysis/engine/market-types.js';
import { upsertBars, upsertSecurities, upsertSnapshots, type SnapshotRow } from '../../../subgraphs/analysis/store.js';
import type { Principal } from '../../../subgraphs/platform/principal.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { weekdays } from '../../helpers/dates.js';

const W = 60;
const SPACING = W + 1;
const TRADES = 16;


const DATES = weekdays(TRADES * SPACING + 2, '2018-01-02');

/** Symbols: 'H*' stage 2 STRONG whose target is hit 3 times in 4; 'P*' stage 2 WEAK hit 1 in 5 (p0 = 1 in 4); 'L*' stage 2 MODERATE 1 in 10. */
const GROUPS: Array<{ prefix: string; strength: string; hit: (j: number) => boolean }> = [
  { prefix: 'H', strength: 'STRONG', hit: (j) => j % 4 !== 3 },
  { prefix: 'P', strength: 'WEAK', hit: (j) => j % 5 === 0 },
  { prefix: 'L', strength: 'MODERATE', hit: (j) => j % 10 === 0 },
];
const PER_GROUP = 6;

function barsOf(symbol: string, hit: (j: number) => boolean, upTo: string): Bar[] {
  const bars: Bar[] = [];
  DATES.forEach((date, t) => {
    if (date > upTo) return;
    const j = Math.floor((t - 1) / SPACING);
    const resolves = t > 0 && (t - 1) % SPACING === 0;
    const high = resolves && hit(j) ? 131 : 100;
    const low = resolves && !hit(j) ? 89 : 100;
    bars.push({ symbol, date, open: 100, high, low, close: 100, volume: 1000 });
  });
  return bars;
}

function snapshotsOf(symbol: string, strength: string, upTo: string): SnapshotRow[] {
  const rows: SnapshotRow[] = [];
  for (let j = 0; j * SPACING < DATES.length; j++) {
    const date = DATES[j * SPACING];
    if (date > upTo) continue;
    const doc = {
      symbol,
      analysis_date: date,
      price: 100,
      stage: 'STAGE 2',
      stage_strength: strength,
      signal: 'BUY',
      confidence: 0.6,
      risk_parameters: { suggested_stop: 90 },
      price_targets: [{ source: 'pattern', direction: 'bullish', price: 130, confidence: 0.5 }],
    };
    rows.push({ symbol, analysisDate: date, doc: JSON.stringify(doc), producedAt: '2026-01-01T00:00:00.000Z', pipelineVersion: PIPELINE_VERSION });
  }
  return rows;
}

async function seed(db: TestDb['db'], upTo: string): Promise<void> {
  const symbols = GROUPS.flatMap((g) => Array.from({ length: PER_GROUP }, (_, k) => ({ symbol: `${g.prefix}${k}`, g })));
  await upsertSecurities(
    db,
    symbols.map(({ symbol }) => ({ symbol, name: symbol, sector: 'Information Technology', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' })),
  );
  for (const { symbol, g } of symbols) {
    await upsertBars(db, barsOf(symbol, g.hit, upTo));
    await upsertSnapshots(db, snapshotsOf(symbol, g.strength, upTo));
  }
}

const partner: Principal = { kind: 'partner', partnerId: 'p1', claims: {} } as unknown as Principal;
const anonymous: Principal = { kind: 'anonymous' } as Principal;

describe('candidate odds in the store', () => {
  let full: TestDb;
  let cut: TestDb;
  const cutDate = DATES[9 * SPACING + 20];

  beforeAll(async () => {
    full = await openTestDb('pglite');
    cut = await openTestDb('pglite');
    await seed(full.db, DATES[DATES.length - 1]);
  });
  afterAll(async () => {
    await full?.drop();
    await cut?.drop();
  });

  it('without measured odds, Kelly (the demo body) gives no rows and says the odds are not measured yet', async () => {
    const service = new AllocationService(full.db, { universeTtlMs: 0 });
    const out = await service.optimizeBody(anonymous, DEMO_OPTIMIZE_BODY, { traceId: 't', naming: 'rest' });
    expect(out.response.allocations).toEqual([]);
    expect(out.response.optimizer_diagnostics?.binding_notes.some((n) => /no measured win odds \(the win odds are not measured yet \(run `tradegraph evaluate`\)\)/.test(n))).toBe(true);
  });

  it('refresh computes every month-end table once; a second refresh computes nothing', async () => {
    const first = await refreshCandidateOdds(full.db);
    expect(first.computed.length).toBeGreaterThan(10);
    expect(first.trades).toBe(GROUPS.length * PER_GROUP * TRADES);
    const again = await refreshCandidateOdds(full.db);
    expect(again.computed).toEqual([]);
    expect(again.skipped).toBe(first.computed.length);
  });

  it('odds as of D are identical with and without the bars and snapshots after D', async () => {
    await seed(cut.db, cutDate);
    const computed = await refreshCandidateOdds(cut.db);
    expect(computed.computed.length).toBeGreaterThan(2);
    const a = await candidateOddsFor(full.db, cutDate);
    const b = await candidateOddsFor(cut.db, cutDate);
    expect(a).not.toBeNull();
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const later = await candidateOddsFor(full.db, DATES[DATES.length - 1]);
    expect(later?.as_of).not.toBe(a?.as_of);
  });

  it('an optimize sizes only the state hit above its no-edge odds (none for the states at or below them), and its notes say where p came from', async () => {
    const service = new AllocationService(full.db, { universeTtlMs: 0 });
    const table = await candidateOddsFor(full.db, DATES[DATES.length - 1]);
    const body = { name: 'k', total_capital: 100000, risk_settings: { allocation_strategy: 'KELLY_CRITERION', max_positions: 20, max_position_size: 0.2, max_risk_per_trade: 0.05, max_portfolio_risk: 1 } };
    const out = await service.optimizeBody(partner, body, { traceId: 't', naming: 'rest' });
    const held = out.response.allocations.map((a) => a.symbol);
    expect(held.length).toBeGreaterThan(0);
    for (const s of held) expect(s.startsWith('H')).toBe(true);
    const notes = out.response.optimizer_diagnostics?.binding_notes ?? [];
    const state = table?.states['STAGE 2 STRONG/pattern'];
    expect(notes.some((n) => n.startsWith(`KELLY_CRITERION: ${held[0]} p=`) && n.includes(`vs no-edge 0.2500`) && n.includes(`p from STAGE 2 STRONG/pattern (n=${state?.n},`) && n.includes(`as of ${table?.as_of})`))).toBe(true);
    expect(notes.some((n) => /^KELLY_CRITERION: 12 eligible names have no positive edge/.test(n))).toBe(true);
  });
});
