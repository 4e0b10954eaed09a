/**
 * rating.ts: WEAK (any weak reason), STRONG (stage 2 with a supportive signal), NEUTRAL otherwise.
 */
import type { Candidate } from '../../../subgraphs/allocation/engine/types.js';
import { bookState } from '../../../subgraphs/search/engine/book.js';
import { rateHolding, type Rating } from '../../../subgraphs/search/engine/rating.js';
import type { HoldingSpec } from './fixtures.js';
import { cand, holding, market, portfolio } from './fixtures.js';

/** The rating of one holding (bought at 100, stop 90, support 95 unless given) with this latest candidate. */
function rate(c: Candidate | undefined, spec: HoldingSpec = {}): Rating {
  const p = portfolio([holding('AAA', { entry: 100, stop: 90, support: 95, ...spec })]);
  const m = market({ candidates: c ? [c] : [] });
  return rateHolding(bookState(p, m).positions[0]);
}

/** A stage 2 BUY at 110: strong unless something is changed. */
const strong = (row: Parameters<typeof cand>[2] = {}, over: Parameters<typeof cand>[3] = {}, stage: 1 | 2 | 3 | 4 | null = 2): Candidate =>
  cand('AAA', { entry: 110, stop: 100, stage }, row, over);

describe('rateHolding', () => {
  it('WEAK without an analysis snapshot', () => {
    const r = rate(undefined);
    expect(r.rating).toBe('WEAK');
    expect(r.reasons[0]).toContain('no analysis snapshot');
    expect(r.stopHit).toBe(false);
  });

  it('WEAK in stage 3 and in stage 4', () => {
    expect(rate(strong({}, {}, 3)).rating).toBe('WEAK');
    expect(rate(strong({}, {}, 3)).reasons.join(' ')).toContain('topping');
    expect(rate(strong({}, {}, 4)).rating).toBe('WEAK');
    expect(rate(strong({}, {}, 4)).reasons.join(' ')).toContain('declining');
  });

  it('WEAK on a SELL signal', () => {
    const r = rate(strong({ signal: 'SELL' }));
    expect(r.rating).toBe('WEAK');
    expect(r.reasons).toContain('signal SELL');
  });

  it('WEAK on a BEARISH pattern signal (not on BULLISH or NEUTRAL)', () => {
    expect(rate(strong({}, { pattern_signal: { direction: 'BEARISH', net_confidence: 0.4 } })).rating).toBe('WEAK');
    expect(rate(strong({}, { pattern_signal: { direction: 'NEUTRAL', net_confidence: 0 } })).rating).toBe('STRONG');
    expect(rate(strong({}, { pattern_signal: { direction: 'BULLISH', net_confidence: 0.4 } })).rating).toBe('STRONG');
  });

  it('WEAK on broken support: a close below the support under the entry (not at it)', () => {
    const below = rate(cand('AAA', { entry: 94.99, stop: 90 }), { support: 95 });
    expect(below.rating).toBe('WEAK');
    expect(below.brokenSupport).toBe(true);
    const at = rate(cand('AAA', { entry: 95, stop: 90 }), { support: 95 });
    expect(at.brokenSupport).toBe(false);
    expect(at.rating).toBe('STRONG');
    // No support at entry: nothing to break.
    expect(rate(cand('AAA', { entry: 91, stop: 85 }), { support: null }).brokenSupport).toBe(false);
  });

  it('WEAK when the close is at or below the position stop', () => {
    const at = rate(cand('AAA', { entry: 90, stop: 85 }), { stop: 90, support: null });
    expect(at.rating).toBe('WEAK');
    expect(at.stopHit).toBe(true);
    expect(rate(cand('AAA', { entry: 89, stop: 85 }), { stop: 90, support: null }).stopHit).toBe(true);
    const above = rate(cand('AAA', { entry: 90.01, stop: 85 }), { stop: 90, support: null });
    expect(above.stopHit).toBe(false);
    expect(above.rating).toBe('STRONG');
  });

  it('lists every weak reason', () => {
    const r = rate(cand('AAA', { entry: 80, stop: 70, stage: 3 }, { signal: 'SELL' }, { pattern_signal: { direction: 'BEARISH', net_confidence: 1 } }));
    expect(r.rating).toBe('WEAK');
    expect(r.reasons).toHaveLength(5); // stage 3, SELL, bearish, broken support, stop hit
    expect(r.stopHit && r.brokenSupport).toBe(true);
  });

  it('STRONG in stage 2 with a BUY signal', () => {
    const r = rate(strong());
    expect(r.rating).toBe('STRONG');
    expect(r.stopHit || r.brokenSupport).toBe(false);
  });

  it('STRONG in stage 2 with a HOLD signal and confidence at least 0.5; NEUTRAL below', () => {
    expect(rate(strong({ signal: 'HOLD' }, { confidence: 0.5 })).rating).toBe('STRONG');
    expect(rate(strong({ signal: 'HOLD' }, { confidence: 0.9 })).rating).toBe('STRONG');
    expect(rate(strong({ signal: 'HOLD' }, { confidence: 0.49 })).rating).toBe('NEUTRAL');
  });

  it('NEUTRAL otherwise: stage 1 BUY, stage 2 without a signal, no stage', () => {
    expect(rate(strong({}, {}, 1)).rating).toBe('NEUTRAL');
    expect(rate(strong({ signal: null })).rating).toBe('NEUTRAL');
    expect(rate(strong({}, {}, null)).rating).toBe('NEUTRAL');
  });
});
