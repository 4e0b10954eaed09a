// shared helpers
import { optimize, symbolsNeedingCloses } from './dist/subgraphs/allocation/engine/optimizer.js';
export { optimize, symbolsNeedingCloses };
const r2 = (x) => Math.round(x * 100) / 100;
export function cand(symbol, s = {}) {
  const entry = r2(s.entry ?? 100);
  const stop = s.stop !== undefined ? s.stop : r2(entry * 0.9);
  const target = s.target === undefined ? r2(entry + 3 * (entry - stop)) : s.target;
  const stage = s.stage === undefined ? 2 : s.stage;
  const rr = target !== null && target > entry ? (target - entry) / (entry - stop) : 0;
  return {
    symbol, sector: s.sector ?? 'Technology', analysis_date: s.date ?? '2024-06-28',
    eligible: s.eligible ?? true, exclusion: null, entry_price: entry, stop_loss: stop,
    target_price: target, target_source: 'resistance', risk_reward_ratio: s.rr ?? rr,
    stop_distance: (entry - stop) / entry, stage_number: stage, strength_factor: s.strength ?? 0.75,
    confidence: s.confidence ?? 0.6, win_probability: s.win ?? 0.5, relative_strength: s.rs ?? 5, row: {},
  };
}
export function settings(strategy, over = {}) {
  return { max_risk_per_trade: 0.1, max_portfolio_risk: 1, max_position_size: 1, max_positions: 30,
    allocation_strategy: strategy, softmax_temperature: null, reward_multiplier: null, stage_weights: null, half_kelly: null, ...over };
}
export function pack(over = {}) {
  return { schema_version: '1', max_portfolio_turnover_annual: null, vol_target_annual: null, sector_caps: null, covariance_model: null, ...over };
}
export function input(cands, over = {}) {
  return { total_capital: 100000, risk_settings: settings('EQUAL_WEIGHT'), constraint_pack: null, prior_book_weights: null, candidates: cands, closes: new Map(), ...over };
}
// deterministic PRNG
export function rng(seed) { let s = seed >>> 0 || 1; return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; }; }
export function normal(r) { let u = 0, v = 0; while (u === 0) u = r(); v = r(); return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v); }
export function dates(n) { const out = []; const d = new Date('2023-01-02T00:00:00Z'); while (out.length < n) { const w = d.getUTCDay(); if (w && w !== 6) out.push(d.toISOString().slice(0, 10)); d.setUTCDate(d.getUTCDate() + 1); } return out; }
export function series(seed, days = 300, vol = 0.015, beta = 0, mseed = 999) {
  const r = rng(seed), m = rng(mseed); const ds = dates(days); const c = []; let p = 100;
  for (let t = 0; t < days; t++) { if (t) p *= Math.exp(beta * 0.01 * normal(m) + vol * normal(r)); c.push(p); }
  return { dates: ds, closes: c };
}
export function fromReturns(rets, start = 100) { const ds = dates(rets.length + 1); const c = [start]; for (const x of rets) c.push(c[c.length - 1] * (1 + x)); return { dates: ds, closes: c }; }
export const notes = (r) => r.diagnostics.binding_notes;
export const sh = (r) => Object.fromEntries(r.allocations.map((a) => [a.symbol, a.shares]));
