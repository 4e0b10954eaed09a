import { optimize, cand, settings, pack, input, notes, sh, rng, normal, fromReturns } from './zz_rev_h.mjs';
const r = rng(5); const ra = [], rb = [];
for (let t = 0; t < 260; t++) { const x = 0.02 * normal(r); ra.push(x); rb.push(-x + 0.0005 * normal(r)); }
const closes = new Map([['AAA', fromReturns(ra)], ['BBB', fromReturns(rb)]]);
const cands = [cand('AAA', { entry: 1, stop: 0.5, confidence: 0.9 }), cand('BBB', { entry: 1, stop: 0.5, confidence: 0.8 })];
const free = optimize(input(cands, { total_capital: 1e6, closes, risk_settings: settings('EQUAL_WEIGHT', { max_risk_per_trade: 1 }), constraint_pack: pack() }));
console.log('free vol', free.metrics.expected_volatility_annual, free.metrics.covariance_shrinkage);
for (const cap of [1e5, 1e6, 1e8, 1e10, 1e12]) for (const f of [0.9, 0.5]) {
  const vt = free.metrics.expected_volatility_annual * f;
  const t0 = performance.now();
  const res = optimize(input(cands, { total_capital: cap, closes, risk_settings: settings('EQUAL_WEIGHT', { max_risk_per_trade: 1 }), constraint_pack: pack({ vol_target_annual: vt }) }));
  console.log(cap, f, (performance.now() - t0).toFixed(1) + 'ms', sh(res), res.remaining_capital, res.metrics.expected_volatility_annual / vt, notes(res).slice(-2));
}
