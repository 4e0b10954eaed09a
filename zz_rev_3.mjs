import { optimize, cand, settings, pack, input, notes, sh, rng, normal, fromReturns } from './zz_rev_h.mjs';
const r = rng(5); const ra = [], rb = [], rc = [];
for (let t = 0; t < 260; t++) { const x = r() < 0.5 ? 0.02 : -0.02; ra.push(x); rb.push(-x); rc.push(0.02 * normal(r)); }
const closes = new Map([['AAA', fromReturns(ra)], ['BBB', fromReturns(rb)], ['CCC', fromReturns(rc)]]);
const cands = [cand('AAA', { entry: 1, stop: 0.5, confidence: 0.9 }), cand('BBB', { entry: 1, stop: 0.5, confidence: 0.8 }), cand('CCC', { entry: 300, stop: 150, confidence: 0.7 })];
const base = { total_capital: 1000, closes, risk_settings: settings('EQUAL_WEIGHT', { max_risk_per_trade: 1 }) };
const free = optimize(input(cands, { ...base, total_capital: 1e10, constraint_pack: pack() }));
console.log('target-weights vol', free.metrics.expected_volatility_annual, free.metrics.covariance_shrinkage);
const fr = optimize(input(cands, { ...base, constraint_pack: pack() }));
console.log('whole-share vol', fr.metrics.expected_volatility_annual, sh(fr));
for (const f of [0.3, 0.5, 0.8, 0.95, 0.99]) {
  const vt = free.metrics.expected_volatility_annual * f;
  const t0 = performance.now();
  const res = optimize(input(cands, { ...base, constraint_pack: pack({ vol_target_annual: vt }) }));
  console.log(f, (performance.now() - t0).toFixed(1) + 'ms', sh(res), res.remaining_capital, res.metrics.expected_volatility_annual / vt, notes(res).slice(-1));
}
