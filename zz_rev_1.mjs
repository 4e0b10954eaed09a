import { optimize, cand, settings, pack, input, notes, sh } from './zz_rev_h.mjs';
// Kelly: AAA f* = 0.6 - 0.4/2 = 0.4; prior holds 0.9 of AAA; turnover cap 0.1
const cands = [cand('AAA', { win: 0.6, target: 120 }), cand('BBB', { win: 0.5, target: 115 })];
const r = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION'), prior_book_weights: { AAA: 0.9 }, constraint_pack: pack({ max_portfolio_turnover_annual: 0.1 }) }));
console.log(sh(r), r.metrics.turnover, notes(r));
