/**
 * The Markdown report (subgraphs/analysis/engine/evidence/report.ts): number formats, the tables of an
 * evaluation with a planted edge (figures as evaluated, intervals as [low, high]), the ML formulations side by
 * side with the one kept, and "n too small" instead of any figure the data cannot support.
 */
import { evaluate } from '../../../../subgraphs/analysis/engine/evidence/evaluate.js';
import { count, distance, interval, percent, points, renderReport, share, TOO_SMALL } from '../../../../subgraphs/analysis/engine/evidence/report.js';
import { nullUniverse, plantedUniverse } from './universe.js';

describe('number formats', () => {
  it('rounds returns, shares, distances and counts as documented', () => {
    expect(percent(0.005)).toBe('+0.50%');
    expect(percent(-0.0008)).toBe('-0.08%');
    expect(percent(-0.00001)).toBe('0.00%');
    expect(percent(0)).toBe('0.00%');
    expect(percent(null)).toBe(TOO_SMALL);
    expect(share(0.339)).toBe('33.9%');
    expect(share(null)).toBe('n too small');
    expect(distance(0.05)).toBe('5.00%');
    expect(points(0.094)).toBe('+9.4 pp');
    expect(points(-0.0004)).toBe('0.0 pp');
    expect(count(21646)).toBe('21,646');
    expect(count(7)).toBe('7');
    expect(interval([-0.0067, 0.0007], (v) => percent(v))).toBe('[-0.67%, +0.07%]');
    expect(interval(null, (v) => percent(v))).toBe(TOO_SMALL);
  });
});

describe('renderReport', () => {
  const u = plantedUniverse({ seed: 5, symbols: 40, days: 780, firstSnapshot: 260, step: 5, vol: 0.015, stage2Drift: 0.0015, epoch: 60, patternEvery: 20, hitShare: 0.7 });
  const e = evaluate(u.rows, { bars: u.closes, calendar: u.calendar, seed: 1, replicates: 300 });
  const report = renderReport(e, { title: 'Planted edge', universe: 'Synthetic: 40 random walks.' });

  it('prints the evaluated figures in tables, with intervals as [low, high]', () => {
    const stage2 = e.byHorizon[0].groups[0].levels[1].summary;
    const ci = stage2.ci as [number, number];
    const hitCi = stage2.hitRateCi as [number, number];
    const line = `| STAGE 2 | ${count(stage2.n)} | ${stage2.dates} | ${percent(stage2.mean)} | ${percent(stage2.median)} | ${share(stage2.hitRate)} | [${percent(ci[0])}, ${percent(ci[1])}] | [${share(hitCi[0])}, ${share(hitCi[1])}] |`;
    expect(report).toContain(line);
    expect(report.startsWith('# Planted edge\n\nSynthetic: 40 random walks.\n\n4,160 snapshots of 40 symbols on 104 dates (T00260 to T00775), one every 5 trading day(s).')).toBe(true);
    expect(report).toContain('## 20-day forward excess return');
    expect(report).toContain('## 60-day forward excess return');
    expect(report).toContain('blocks of at least 12 date(s) and Newey-West t-statistics use at least 11 lag(s)');
    const rank = e.byHorizon[1].ic.find((r) => r.score === 'stage_rank');
    expect(report).toContain(`| stage_rank | ${rank?.ic.dates} | +${(rank?.ic.mean as number).toFixed(3)} | ${(rank?.ic.t as number).toFixed(2)} |`);
    expect(report).toMatch(/\| momentum_12_1 \(baseline\) \| \d+ \| [+-]?\d\.\d{3} \| -?\d+\.\d\d \| \d+\.\d% \| - \| - \|/);
    const flag = e.patternTargets?.rows.find((r) => r.type === 'BULL_FLAG');
    expect(report).toContain(`| BULL_FLAG | ${flag?.detections} | ${flag?.dates} | 5.00% | 5.00% | ${share(flag?.hit.mean ?? null)} |`);
    expect(report).toContain('Not measured: 0 without bars on the date, 120 without 60 bars after it.');
    // Levels without rows are named, not printed as rows of zeros.
    expect(report).toContain('No rows: DOUBLE_TOP, DOUBLE_BOTTOM,');
    expect(report).not.toMatch(/\| DOUBLE_TOP \|/);
    expect(report).not.toMatch(/NaN|undefined|Infinity|null/);
  });

  it('puts the ML formulations side by side and states which is kept, under the 20-day section only', () => {
    const h = e.byHorizon[0];
    const cross = h.mlFormulations[1];
    const ci = cross.auc.ci as { low: number; high: number };
    expect(report).toContain('### ML formulations');
    expect(report).toContain('| Formulation | Rows | n | Dates | AUC | CI | Mean IC | t |');
    expect(report).toContain(
      `| cross-sectional (ranked per date) | its own | ${count(cross.auc.n)} | ${cross.auc.dates} | ${(cross.auc.auc as number).toFixed(3)} | [${ci.low.toFixed(3)}, ${ci.high.toFixed(3)}] |`,
    );
    expect(report).toMatch(/\| per-symbol \(stored ml_probability\) \| both scored \| [\d,]+ \| \d+ \| 0\.\d{3} \| \[0\.\d{3}, 0\.\d{3}\] \| [+-]?\d\.\d{3} \| -?\d+\.\d\d \|/);
    expect(report).toContain('logistic regression (ridge 10) refitted walk-forward on the rows whose 20-day outcome was known 20 trading days before the date scored');
    const kept = report.split('\n').filter((line) => line.startsWith('Kept: '));
    expect(kept).toEqual([e.mlChoice.reason]);
    expect(report.indexOf(e.mlChoice.reason)).toBeLessThan(report.indexOf('## 60-day forward excess return'));
  });

  it('says "n too small" wherever the statistics are null, never printing invented numbers', () => {
    const small = nullUniverse({ seed: 2, symbols: 6, days: 310, firstSnapshot: 260, step: 5, vol: 0.02 });
    const few = evaluate(small.rows, { bars: small.closes, calendar: small.calendar, replicates: 100 });
    const text = renderReport(few);
    expect(few.byHorizon[0].dates).toBeLessThan(10);
    expect(text).toContain('# Evidence report');
    // Means exist, intervals and t-statistics do not (fewer than 10 dates); no 60-day window at all.
    expect(text).toMatch(/\| STAGE 1 \| \d+ \| \d \| [+-]?\d+\.\d\d% \| [+-]?\d+\.\d\d% \| \d+\.\d% \| n too small \| n too small \|/);
    expect(text).toMatch(/\| sata_score \| 6 \| [+-]?\d\.\d{3} \| n too small \| \d+\.\d% \| n too small \| n too small \|/);
    expect(text).toContain('| 0 | 0 | 0 | n too small | n too small |');
    expect(text).not.toMatch(/NaN|undefined|Infinity|null/);
    expect(renderReport(evaluate([]))).toContain('No snapshots to evaluate.');
    expect(renderReport(evaluate([]))).not.toMatch(/NaN|undefined|Infinity|null/);
  });
});
