/**
 * The preset dictionary of stored snapshot format 1 (snapshot-codec.ts): the jsonb text of six demo
 * documents (stages 1 to 4, pipeline 1.1.0), cut to the last 32,000 characters (deflate looks back at most
 * 32 KB). Frozen: stored snapshots can only be read with exactly these bytes (a test checks their hash).
 */
export const SNAPSHOT_DICTIONARY_1 =
  " \"DOUBLE_BOTTOM\", \"status\": \"active\", \"end_date\": \"2026-10-22\", \"direction\": \"bullish\", \"confidence\": 0.4828, " +
  "\"key_points\": [{\"date\": \"2026-09-11\", \"label\": \"first_trough\", \"price\": 72.4235}, {\"date\": \"2026-09-24\", \"labe" +
  "l\": \"neckline\", \"price\": 90.1375}, {\"date\": \"2026-10-14\", \"label\": \"second_trough\", \"price\": 75.7631}, {\"date\"" +
  ": \"2026-10-22\", \"label\": \"breakout\", \"price\": 91.6535}], \"start_date\": \"2026-09-11\", \"price_target\": 106.1818," +
  " \"breakout_level\": 90.1375, \"confidence_parts\": {\"trend\": 0.6274, \"volume\": 0.5656, \"geometry\": 0.3691}, \"inva" +
  "lidation_level\": 72.4235}, \"recent_pattern_signal\": {\"direction\": \"BULLISH\", \"pattern_count\": 2, \"net_confiden" +
  "ce\": 0.6765, \"bearish_confidence\": 0, \"bullish_confidence\": 0.6765}, \"transition_probabilities\": {\"counts\": {\"" +
  "STAGE 1\": {\"STAGE 1\": 6933, \"STAGE 2\": 487, \"STAGE 3\": 0, \"STAGE 4\": 235}, \"STAGE 2\": {\"STAGE 1\": 81, \"STAGE 2" +
  "\": 25459, \"STAGE 3\": 759, \"STAGE 4\": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 226, \"STAGE 3\": 4827, \"STAGE 4\":" +
  " 665}, \"STAGE 4\": {\"STAGE 1\": 605, \"STAGE 2\": 0, \"STAGE 3\": 76, \"STAGE 4\": 19647}}, \"matrix\": {\"STAGE 1\": {\"ST" +
  "AGE 1\": 0.905683, \"STAGE 2\": 0.0636185, \"STAGE 3\": 0, \"STAGE 4\": 0.0306989}, \"STAGE 2\": {\"STAGE 1\": 0.00307997" +
  ", \"STAGE 2\": 0.96806, \"STAGE 3\": 0.0288604, \"STAGE 4\": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 0.0395243, \"ST" +
  "AGE 3\": 0.844176, \"STAGE 4\": 0.116299}, \"STAGE 4\": {\"STAGE 1\": 0.0297619, \"STAGE 2\": 0, \"STAGE 3\": 0.00373869," +
  " \"STAGE 4\": 0.966499}}, \"symbols\": 500, \"next_week\": {\"STAGE 1\": 0.00307997, \"STAGE 2\": 0.96806, \"STAGE 3\": 0." +
  "0288604, \"STAGE 4\": 0}, \"sample_size\": 26299, \"current_stage\": \"STAGE 2\", \"estimated_through\": \"2026-10-30\", \"" +
  "total_transitions\": 60000}}\n{\"price\": 66.3057, \"stage\": \"STAGE 3\", \"sector\": \"Consumer Discretionary\", \"signal" +
  "\": \"HOLD\", \"symbol\": \"BIS\", \"volume\": 315040, \"bars_used\": 756, \"ml_signal\": {\"model\": {\"model\": \"logistic_reg" +
  "ression\", \"oos_auc\": 0.542, \"version\": \"1\", \"features\": [\"ret_5\", \"ret_20\", \"ret_60\", \"excess_ret_20\", \"dist_s" +
  "ma50\", \"dist_sma200\", \"rsi_14\", \"macd_hist\", \"bb_width\", \"hv_20\", \"hv_ratio\", \"rel_volume\", \"rel_strength\", \"s" +
  "tage_2\", \"stage_3\", \"stage_4\"], \"oos_dates\": 46, \"oos_auc_ci\": {\"low\": 0.5353, \"high\": 0.5515, \"level\": 0.95, " +
  "\"block_length\": 5}, \"oos_samples\": 23000, \"oos_through\": \"2026-07-17\", \"horizon_days\": 20, \"oos_accuracy\": 0.5" +
  "281, \"train_samples\": 48500, \"trained_through\": \"2026-07-23\"}, \"signal\": \"BUY\", \"confidence\": 0.1781, \"probabi" +
  "lity_up\": 0.589}, \"timestamp\": \"2026-11-26T13:49:20.594Z\", \"confidence\": 0.9517, \"indicators\": {\"macd\": {\"macd" +
  "\": 2.399, \"signal\": 1.9598, \"histogram\": 0.439145}, \"atr_14\": 2.2268, \"ema_10\": 64.6343, \"ema_20\": 62.5738, \"e" +
  "ma_50\": 60.3737, \"rsi_14\": 68.91, \"sma_10\": 65.2996, \"sma_20\": 61.6148, \"sma_50\": 58.7288, \"ema_10w\": 60.4313," +
  " \"ema_150\": 58.9114, \"ema_200\": 57.7123, \"ema_30w\": 58.8674, \"sma_10w\": 58.5523, \"sma_150\": 60.8517, \"sma_200\"" +
  ": 59.6768, \"sma_30w\": 60.7629, \"bollinger\": {\"lower\": 53.6502, \"upper\": 69.5794, \"middle\": 61.6148, \"bandwidth" +
  "\": 0.258528}, \"sata_score\": 9, \"atr_percent\": 3.358, \"mansfield_rs\": 47.1696, \"volume_sma_20\": 527947, \"volume" +
  "_sma_50\": 490608, \"relative_volume\": 0.642142, \"volatility_trend\": \"stable\", \"is_high_volatility\": false, \"his" +
  "torical_volatility_20\": 0.359012, \"historical_volatility_60\": 0.356312}, \"data_source\": \"synthetic\", \"best_pat" +
  "tern\": {\"type\": \"HEAD_AND_SHOULDERS\", \"status\": \"active\", \"end_date\": \"2026-07-06\", \"direction\": \"bearish\", \"c" +
  "onfidence\": 0.6623, \"key_points\": [{\"date\": \"2026-05-08\", \"label\": \"left_shoulder\", \"price\": 66.8437}, {\"date\"" +
  ": \"2026-05-18\", \"label\": \"neckline_left\", \"price\": 58.4034}, {\"date\": \"2026-05-29\", \"label\": \"head\", \"price\": " +
  "72.8852}, {\"date\": \"2026-06-17\", \"label\": \"neckline_right\", \"price\": 61.7274}, {\"date\": \"2026-06-30\", \"label\":" +
  " \"right_shoulder\", \"price\": 68.7036}, {\"date\": \"2026-07-06\", \"label\": \"breakout\", \"price\": 63.3865}], \"start_d" +
  "ate\": \"2026-05-08\", \"price_target\": 50.4185, \"breakout_level\": 63.5405, \"confidence_parts\": {\"trend\": 0.8877, " +
  "\"volume\": 0.5085, \"geometry\": 0.6265}, \"invalidation_level\": 72.8852}, \"stage_detail\": {\"sata\": [{\"met\": true," +
  " \"name\": \"breakout\", \"detail\": \"close 66.31 above resistance 64.24 (highest weekly high of the 13 weeks ending" +
  " 2026-10-02)\"}, {\"met\": true, \"name\": \"above_ma_10w\", \"detail\": \"close 66.31 above the 10-week MA 58.55\"}, {\"m" +
  "et\": true, \"name\": \"above_ma_30w\", \"detail\": \"close 66.31 above the 30-week MA 60.76\"}, {\"met\": true, \"name\": " +
  "\"ma_10w_rising\", \"detail\": \"10-week MA 58.55 vs 57.95 a week earlier\"}, {\"met\": true, \"name\": \"ma_30w_rising\"," +
  " \"detail\": \"30-week MA +1.30% over 4 weeks (rising above +1%)\"}, {\"met\": true, \"name\": \"mansfield_rs_positive\"" +
  ", \"detail\": \"Mansfield RS +47.17\"}, {\"met\": true, \"name\": \"mansfield_rs_rising\", \"detail\": \"Mansfield RS +16.6" +
  "2 points over 4 weeks (rising above +1)\"}, {\"met\": true, \"name\": \"momentum\", \"detail\": \"13-week rate of change" +
  " +9.1%\"}, {\"met\": false, \"name\": \"volume\", \"detail\": \"up-week volume does not exceed down-week volume over 10 " +
  "weeks (ratio 0.89)\"}, {\"met\": true, \"name\": \"no_overhead_resistance\", \"detail\": \"close 9.0% below the 52-week " +
  "high 72.89 (at most 10% allowed)\"}], \"label\": \"STAGE 3\", \"stage\": 3, \"ma_10w\": 58.5523, \"ma_30w\": 60.7629, \"re" +
  "asons\": [\"Stage 3 (topping): close 9.1% above the 30-week MA 60.76, which is rising (+1.30% over 4 weeks).\", \"" +
  "Returned to stage 3 in the week ending 2026-10-23: the stage-4 breakdown failed (close back above the 30-week " +
  "MA).\", \"2 weeks in stage 3; sub-stage 3A: early top (30-week MA still edging up).\", \"Top range: resistance 67." +
  "50, support 53.20; a close above resistance with the MA not falling would signal stage 2, below support stage " +
  "4.\", \"Mansfield RS +47.17 and rising versus the index.\", \"SATA 9/10 (breakout, above_ma_10w, above_ma_30w, ma_" +
  "10w_rising, ma_30w_rising, mansfield_rs_positive, mansfield_rs_rising, momentum, no_overhead_resistance) -> WE" +
  "AK (strength of the top).\"], \"strength\": \"WEAK\", \"sub_stage\": \"3A\", \"sata_score\": 9, \"week_ending\": \"2026-10-3" +
  "0\", \"mansfield_rs\": 47.1696, \"weeks_in_stage\": 2, \"mansfield_rs_trend\": \"rising\", \"ma_30w_slope_percent\": 1.29" +
  "51, \"breakout_volume_ratio\": 0.541557, \"price_vs_ma_30w_percent\": 9.1222}, \"analysis_date\": \"2026-10-30\", \"mar" +
  "ket_regime\": \"bear\", \"price_targets\": [{\"basis\": \"resistance (2 touches)\", \"price\": 66.5976, \"source\": \"resist" +
  "ance\", \"direction\": \"bullish\", \"confidence\": 0.5895, \"distance_percent\": 0.44}, {\"basis\": \"resistance (1 touch" +
  "es)\", \"price\": 68.7036, \"source\": \"resistance\", \"direction\": \"bullish\", \"confidence\": 0.413, \"distance_percent" +
  "\": 3.62}, {\"basis\": \"support (6 touches)\", \"price\": 61.4809, \"source\": \"support\", \"direction\": \"bearish\", \"con" +
  "fidence\": 0.8722, \"distance_percent\": -7.28}, {\"basis\": \"support (6 touches)\", \"price\": 59.3993, \"source\": \"su" +
  "pport\", \"direction\": \"bearish\", \"confidence\": 0.9509, \"distance_percent\": -10.42}, {\"basis\": \"BEAR_FLAG\", \"pri" +
  "ce\": 51.6958, \"source\": \"pattern\", \"direction\": \"bearish\", \"confidence\": 0.327, \"distance_percent\": -22.03}], " +
  "\"regime_detail\": {\"regime\": \"bear\", \"reasons\": [\"TGMI closed at 948.41, 20.43% below its 200-day SMA 1191.98.\"" +
  ", \"The 200-day SMA is falling (-3.58% over 20 days; flat within +-0.25%).\", \"The index's weekly stage is STAGE" +
  " 4.\", \"Bear: the index is below a falling 200-day SMA and in a stage-4 decline.\"], \"index_close\": 948.4147, \"i" +
  "ndex_stage\": \"STAGE 4\", \"index_symbol\": \"TGMI\", \"index_sma_200\": 1191.9837, \"index_sma_200_slope_percent\": -3." +
  "5788}, \"pattern_signal\": {\"direction\": \"BEARISH\", \"pattern_count\": 7, \"net_confidence\": -0.5073, \"bearish_conf" +
  "idence\": 0.9036, \"bullish_confidence\": 0.3963}, \"signal_reasons\": [\"STAGE 3 top: distribution risk\", \"relative" +
  " strength positive and rising (47.2)\", \"patterns bearish (net -0.51)\", \"close above a rising 50-day average\", " +
  "\"market regime bear\"], \"stage_strength\": \"WEAK\", \"support_levels\": [61.4809, 59.3993, 58.1855, 56.5677, 55.155" +
  "3], \"enhanced_signal\": {\"score\": 0.0002, \"signal\": \"HOLD\", \"reasons\": [\"rules HOLD (score -0.03, weight 0.86)\"" +
  ", \"ML BUY (p_up 0.59, weight 0.14): out-of-sample AUC 0.542 [0.535, 0.551] (95%, 46 dates), lower bound above " +
  "0.5: min(0.5, 4 x (0.535 - 0.5))\"], \"weights\": {\"ml\": {\"reason\": \"ml: out-of-sample AUC 0.542 [0.535, 0.551] (" +
  "95%, 46 dates), lower bound above 0.5: min(0.5, 4 x (0.535 - 0.5)): weight 0.1412\", \"weight\": 0.1412}, \"rules\"" +
  ": {\"reason\": \"rules: the base score: weight 0.8588 = 1 - the gated components' weights\", \"weight\": 0.8588}}, \"" +
  "ml_weight\": 0.1412, \"confidence\": 0.9996, \"rules_weight\": 0.8588}, \"recent_patterns\": [{\"type\": \"DOUBLE_BOTTOM" +
  "\", \"status\": \"completed\", \"end_date\": \"2026-10-15\", \"direction\": \"bullish\", \"confidence\": 0.6111, \"key_points\"" +
  ": [{\"date\": \"2026-09-21\", \"label\": \"first_trough\", \"price\": 53.2022}, {\"date\": \"2026-10-07\", \"label\": \"necklin" +
  "e\", \"price\": 59.7371}, {\"date\": \"2026-10-12\", \"label\": \"second_trough\", \"price\": 53.6353}, {\"date\": \"2026-10-1" +
  "5\", \"label\": \"breakout\", \"price\": 60.5527}], \"start_date\": \"2026-09-21\", \"price_target\": 66.0555, \"breakout_le" +
  "vel\": 59.7371, \"confidence_parts\": {\"trend\": 0.7111, \"volume\": 0.3919, \"geometry\": 0.6707}, \"invalidation_leve" +
  "l\": 53.2022}, {\"type\": \"DESCENDING_TRIANGLE\", \"status\": \"failed\", \"end_date\": \"2026-10-12\", \"direction\": \"bear" +
  "ish\", \"confidence\": 0.4909, \"key_points\": [{\"date\": \"2026-08-31\", \"label\": \"upper_1\", \"price\": 63.0177}, {\"dat" +
  "e\": \"2026-09-21\", \"label\": \"lower_1\", \"price\": 53.2022}, {\"date\": \"2026-10-07\", \"label\": \"upper_2\", \"price\": 5" +
  "9.7371}, {\"date\": \"2026-10-12\", \"label\": \"lower_2\", \"price\": 53.6353}], \"start_date\": \"2026-08-31\", \"price_tar" +
  "get\": 43.4733, \"breakout_level\": 53.7219, \"confidence_parts\": {\"trend\": 0.5634, \"volume\": 0.2179, \"geometry\": " +
  "0.5912}, \"invalidation_level\": 59.7371}, {\"type\": \"BEAR_FLAG\", \"status\": \"failed\", \"end_date\": \"2026-09-29\", \"" +
  "direction\": \"bearish\", \"confidence\": 0.4408, \"key_points\": [{\"date\": \"2026-08-31\", \"label\": \"pole_start\", \"pri" +
  "ce\": 63.0177}, {\"date\": \"2026-09-21\", \"label\": \"pole_top\", \"price\": 53.2022}, {\"date\": \"2026-09-29\", \"label\": " +
  "\"flag_high\", \"price\": 59.6888}], \"start_date\": \"2026-08-31\", \"price_target\": 43.3866, \"breakout_level\": 53.202" +
  "2, \"confidence_parts\": {\"trend\": 0.5584, \"volume\": 0.5073, \"geometry\": 0.3487}, \"invalidation_level\": 58.11}]," +
  " \"risk_parameters\": {\"atr\": 2.2268, \"atr_stop\": 61.8521, \"atr_percent\": 3.358, \"entry_price\": 66.3057, \"stop_m" +
  "ethod\": \"atr\", \"support_stop\": 60.9242, \"risk_per_share\": 4.4536, \"suggested_stop\": 61.8521, \"suggested_target" +
  "\": 71.5437, \"volatility_trend\": \"stable\", \"reward_risk_ratio\": 1.18, \"is_high_volatility\": false, \"position_si" +
  "ze_hint\": \"1% risk per trade = 14.9% of capital\", \"historical_volatility\": 0.359012, \"risk_per_share_percent\":" +
  " 6.72, \"min_stop_distance_percent\": 3.36, \"volatility_stop_loss_levels\": {\"atr_1x\": 64.0789, \"atr_2x\": 61.8521" +
  ", \"atr_3x\": 59.6254, \"hv_1sd_20d\": 59.9275}, \"shares_per_100k_at_1pct_risk\": 224}, \"pipeline_version\": \"1.1.0\"" +
  ", \"detected_patterns\": [{\"type\": \"DOUBLE_BOTTOM\", \"status\": \"completed\", \"end_date\": \"2026-10-15\", \"direction\"" +
  ": \"bullish\", \"confidence\": 0.6259, \"key_points\": [{\"date\": \"2026-09-21\", \"label\": \"first_trough\", \"price\": 53." +
  "2022}, {\"date\": \"2026-10-07\", \"label\": \"neckline\", \"price\": 59.7371}, {\"date\": \"2026-10-12\", \"label\": \"second_" +
  "trough\", \"price\": 53.6353}, {\"date\": \"2026-10-15\", \"label\": \"breakout\", \"price\": 60.5527}], \"start_date\": \"202" +
  "6-09-21\", \"price_target\": 66.0555, \"breakout_level\": 59.7371, \"confidence_parts\": {\"trend\": 0.7703, \"volume\": " +
  "0.3919, \"geometry\": 0.6707}, \"invalidation_level\": 53.2022}, {\"type\": \"BEAR_FLAG\", \"status\": \"failed\", \"end_da" +
  "te\": \"2026-09-29\", \"direction\": \"bearish\", \"confidence\": 0.4837, \"key_points\": [{\"date\": \"2026-08-31\", \"label\"" +
  ": \"pole_start\", \"price\": 63.0177}, {\"date\": \"2026-09-21\", \"label\": \"pole_top\", \"price\": 53.2022}, {\"date\": \"20" +
  "26-09-29\", \"label\": \"flag_high\", \"price\": 59.6888}], \"start_date\": \"2026-08-31\", \"price_target\": 43.3866, \"bre" +
  "akout_level\": 53.2022, \"confidence_parts\": {\"trend\": 0.7299, \"volume\": 0.5073, \"geometry\": 0.3487}, \"invalidat" +
  "ion_level\": 58.11}, {\"type\": \"RANGE_BREAKOUT\", \"status\": \"failed\", \"end_date\": \"2026-09-04\", \"direction\": \"bea" +
  "rish\", \"confidence\": 0.6182, \"key_points\": [{\"date\": \"2026-07-20\", \"label\": \"range_low_1\", \"price\": 56.7238}, " +
  "{\"date\": \"2026-07-31\", \"label\": \"range_high_1\", \"price\": 63.5438}, {\"date\": \"2026-08-27\", \"label\": \"range_low_" +
  "2\", \"price\": 56.9419}, {\"date\": \"2026-08-31\", \"label\": \"range_high_2\", \"price\": 63.0177}, {\"date\": \"2026-09-04" +
  "\", \"label\": \"breakout\", \"price\": 56.1807}], \"start_date\": \"2026-07-20\", \"price_target\": 49.9038, \"breakout_lev" +
  "el\": 56.7238, \"confidence_parts\": {\"trend\": 0.8591, \"volume\": 0.5242, \"geometry\": 0.5448}, \"invalidation_level" +
  "\": 60.1338}, {\"type\": \"DESCENDING_TRIANGLE\", \"status\": \"failed\", \"end_date\": \"2026-09-04\", \"direction\": \"beari" +
  "sh\", \"confidence\": 0.6098, \"key_points\": [{\"date\": \"2026-06-30\", \"label\": \"upper_1\", \"price\": 68.7036}, {\"date" +
  "\": \"2026-07-20\", \"label\": \"lower_1\", \"price\": 56.7238}, {\"date\": \"2026-07-31\", \"label\": \"upper_2\", \"price\": 63" +
  ".5438}, {\"date\": \"2026-08-27\", \"label\": \"lower_2\", \"price\": 56.9419}, {\"date\": \"2026-09-04\", \"label\": \"breakou" +
  "t\", \"price\": 56.1807}], \"start_date\": \"2026-06-30\", \"price_target\": 44.9076, \"breakout_level\": 56.9887, \"confi" +
  "dence_parts\": {\"trend\": 0.416, \"volume\": 0.5858, \"geometry\": 0.7186}, \"invalidation_level\": 63.5438}, {\"type\":" +
  " \"DOUBLE_TOP\", \"status\": \"failed\", \"end_date\": \"2026-09-04\", \"direction\": \"bearish\", \"confidence\": 0.4807, \"ke" +
  "y_points\": [{\"date\": \"2026-07-31\", \"label\": \"first_peak\", \"price\": 63.5438}, {\"date\": \"2026-08-27\", \"label\": \"" +
  "neckline\", \"price\": 56.9419}, {\"date\": \"2026-08-31\", \"label\": \"second_peak\", \"price\": 63.0177}, {\"date\": \"2026" +
  "-09-04\", \"label\": \"breakout\", \"price\": 56.1807}], \"start_date\": \"2026-07-31\", \"price_target\": 50.6031, \"breako" +
  "ut_level\": 56.9419, \"confidence_parts\": {\"trend\": 0.155, \"volume\": 0.4626, \"geometry\": 0.6526}, \"invalidation_" +
  "level\": 63.5438}], \"resistance_levels\": [66.5976, 68.7036, 71.5437, 72.8852], \"analysis_timestamp\": \"2026-11-2" +
  "6T13:49:20.594Z\", \"support_resistance\": {\"support\": [{\"price\": 61.4809, \"touches\": 6, \"strength\": 0.872156, \"l" +
  "ast_touch_date\": \"2026-08-12\", \"first_touch_date\": \"2026-01-23\"}, {\"price\": 59.3993, \"touches\": 6, \"strength\":" +
  " 0.950906, \"last_touch_date\": \"2026-10-07\", \"first_touch_date\": \"2026-02-12\"}, {\"price\": 58.1855, \"touches\": 6" +
  ", \"strength\": 0.923344, \"last_touch_date\": \"2026-09-17\", \"first_touch_date\": \"2026-02-16\"}, {\"price\": 56.5677," +
  " \"touches\": 5, \"strength\": 0.879625, \"last_touch_date\": \"2026-08-27\", \"first_touch_date\": \"2026-02-10\"}, {\"pri" +
  "ce\": 55.1553, \"touches\": 6, \"strength\": 0.943031, \"last_touch_date\": \"2026-10-01\", \"first_touch_date\": \"2026-0" +
  "2-13\"}], \"resistance\": [{\"price\": 66.5976, \"touches\": 2, \"strength\": 0.5895, \"last_touch_date\": \"2026-06-02\", " +
  "\"first_touch_date\": \"2026-05-08\"}, {\"price\": 68.7036, \"touches\": 1, \"strength\": 0.413, \"last_touch_date\": \"202" +
  "6-06-30\", \"first_touch_date\": \"2026-06-30\"}, {\"price\": 71.5437, \"touches\": 1, \"strength\": 0.394, \"last_touch_d" +
  "ate\": \"2026-06-03\", \"first_touch_date\": \"2026-06-03\"}, {\"price\": 72.8852, \"touches\": 1, \"strength\": 0.391, \"la" +
  "st_touch_date\": \"2026-05-29\", \"first_touch_date\": \"2026-05-29\"}]}, \"best_recent_pattern\": {\"type\": \"DOUBLE_BOT" +
  "TOM\", \"status\": \"completed\", \"end_date\": \"2026-10-15\", \"direction\": \"bullish\", \"confidence\": 0.6111, \"key_poin" +
  "ts\": [{\"date\": \"2026-09-21\", \"label\": \"first_trough\", \"price\": 53.2022}, {\"date\": \"2026-10-07\", \"label\": \"neck" +
  "line\", \"price\": 59.7371}, {\"date\": \"2026-10-12\", \"label\": \"second_trough\", \"price\": 53.6353}, {\"date\": \"2026-1" +
  "0-15\", \"label\": \"breakout\", \"price\": 60.5527}], \"start_date\": \"2026-09-21\", \"price_target\": 66.0555, \"breakout" +
  "_level\": 59.7371, \"confidence_parts\": {\"trend\": 0.7111, \"volume\": 0.3919, \"geometry\": 0.6707}, \"invalidation_l" +
  "evel\": 53.2022}, \"recent_pattern_signal\": {\"direction\": \"BULLISH\", \"pattern_count\": 1, \"net_confidence\": 0.152" +
  "8, \"bearish_confidence\": 0, \"bullish_confidence\": 0.1528}, \"transition_probabilities\": {\"counts\": {\"STAGE 1\": " +
  "{\"STAGE 1\": 6933, \"STAGE 2\": 487, \"STAGE 3\": 0, \"STAGE 4\": 235}, \"STAGE 2\": {\"STAGE 1\": 81, \"STAGE 2\": 25459, " +
  "\"STAGE 3\": 759, \"STAGE 4\": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 226, \"STAGE 3\": 4827, \"STAGE 4\": 665}, \"ST" +
  "AGE 4\": {\"STAGE 1\": 605, \"STAGE 2\": 0, \"STAGE 3\": 76, \"STAGE 4\": 19647}}, \"matrix\": {\"STAGE 1\": {\"STAGE 1\": 0." +
  "905683, \"STAGE 2\": 0.0636185, \"STAGE 3\": 0, \"STAGE 4\": 0.0306989}, \"STAGE 2\": {\"STAGE 1\": 0.00307997, \"STAGE 2" +
  "\": 0.96806, \"STAGE 3\": 0.0288604, \"STAGE 4\": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 0.0395243, \"STAGE 3\": 0." +
  "844176, \"STAGE 4\": 0.116299}, \"STAGE 4\": {\"STAGE 1\": 0.0297619, \"STAGE 2\": 0, \"STAGE 3\": 0.00373869, \"STAGE 4\"" +
  ": 0.966499}}, \"symbols\": 500, \"next_week\": {\"STAGE 1\": 0, \"STAGE 2\": 0.0395243, \"STAGE 3\": 0.844176, \"STAGE 4\"" +
  ": 0.116299}, \"sample_size\": 5718, \"current_stage\": \"STAGE 3\", \"estimated_through\": \"2026-10-30\", \"total_transi" +
  "tions\": 60000}}\n{\"price\": 26.0459, \"stage\": \"STAGE 3\", \"sector\": \"Industrials\", \"signal\": \"SELL\", \"symbol\": \"G" +
  "PL\", \"volume\": 60519, \"bars_used\": 756, \"ml_signal\": {\"model\": {\"model\": \"logistic_regression\", \"oos_auc\": 0.5" +
  "42, \"version\": \"1\", \"features\": [\"ret_5\", \"ret_20\", \"ret_60\", \"excess_ret_20\", \"dist_sma50\", \"dist_sma200\", \"r" +
  "si_14\", \"macd_hist\", \"bb_width\", \"hv_20\", \"hv_ratio\", \"rel_volume\", \"rel_strength\", \"stage_2\", \"stage_3\", \"sta" +
  "ge_4\"], \"oos_dates\": 46, \"oos_auc_ci\": {\"low\": 0.5353, \"high\": 0.5515, \"level\": 0.95, \"block_length\": 5}, \"oos" +
  "_samples\": 23000, \"oos_through\": \"2026-07-17\", \"horizon_days\": 20, \"oos_accuracy\": 0.5281, \"train_samples\": 48" +
  "500, \"trained_through\": \"2026-07-23\"}, \"signal\": \"HOLD\", \"confidence\": 0.0153, \"probability_up\": 0.4923}, \"tim" +
  "estamp\": \"2026-11-26T13:49:20.594Z\", \"confidence\": 0.6266, \"indicators\": {\"macd\": {\"macd\": -0.480774, \"signal\"" +
  ": -0.354154, \"histogram\": -0.12662}, \"atr_14\": 1.2685, \"ema_10\": 26.8818, \"ema_20\": 27.2863, \"ema_50\": 27.9809" +
  ", \"rsi_14\": 40.5, \"sma_10\": 27.1212, \"sma_20\": 27.3773, \"sma_50\": 28.2216, \"ema_10w\": 27.5792, \"ema_150\": 28.2" +
  "899, \"ema_200\": 27.9134, \"ema_30w\": 28.1679, \"sma_10w\": 27.7929, \"sma_150\": 29.4187, \"sma_200\": 28.5934, \"sma_" +
  "30w\": 29.3398, \"bollinger\": {\"lower\": 25.5011, \"upper\": 29.2535, \"middle\": 27.3773, \"bandwidth\": 0.137061}, \"s" +
  "ata_score\": 1, \"atr_percent\": 4.87, \"mansfield_rs\": 17.9363, \"volume_sma_20\": 74532, \"volume_sma_50\": 63176, \"" +
  "relative_volume\": 0.957937, \"volatility_trend\": \"rising\", \"is_high_volatility\": true, \"historical_volatility_2" +
  "0\": 0.441009, \"historical_volatility_60\": 0.34991}, \"data_source\": \"synthetic\", \"best_pattern\": {\"type\": \"HEAD" +
  "_AND_SHOULDERS\", \"status\": \"active\", \"end_date\": \"2026-05-21\", \"direction\": \"bearish\", \"confidence\": 0.7441, \"" +
  "key_points\": [{\"date\": \"2026-04-23\", \"label\": \"left_shoulder\", \"price\": 33.1472}, {\"date\": \"2026-04-30\", \"labe" +
  "l\": \"neckline_left\", \"price\": 29.6863}, {\"date\": \"2026-05-11\", \"label\": \"head\", \"price\": 36.3167}, {\"date\": \"2" +
  "026-05-19\", \"label\": \"neckline_right\", \"price\": 30.4507}, {\"date\": \"2026-05-20\", \"label\": \"right_shoulder\", \"p" +
  "rice\": 33.487}, {\"date\": \"2026-05-21\", \"label\": \"breakout\", \"price\": 30.4688}], \"start_date\": \"2026-04-23\", \"p" +
  "rice_target\": 24.3495, \"breakout_level\": 30.5683, \"confidence_parts\": {\"trend\": 1, \"volume\": 0.4376, \"geometry" +
  "\": 0.7693}, \"invalidation_level\": 36.3167}, \"stage_detail\": {\"sata\": [{\"met\": false, \"name\": \"breakout\", \"deta" +
  "il\": \"close 26.05 not above resistance 33.06 (highest weekly high of the 13 weeks ending 2026-10-02)\"}, {\"met\"" +
  ": false, \"name\": \"above_ma_10w\", \"detail\": \"close 26.05 not above the 10-week MA 27.79\"}, {\"met\": false, \"name" +
  "\": \"above_ma_30w\", \"detail\": \"close 26.05 not above the 30-week MA 29.34\"}, {\"met\": false, \"name\": \"ma_10w_ris" +
  "ing\", \"detail\": \"10-week MA 27.79 vs 28.21 a week earlier\"}, {\"met\": false, \"name\": \"ma_30w_rising\", \"detail\":" +
  " \"30-week MA -0.75% over 4 weeks (rising above +1%)\"}, {\"met\": true, \"name\": \"mansfield_rs_positive\", \"detail\"" +
  ": \"Mansfield RS +17.94\"}, {\"met\": false, \"name\": \"mansfield_rs_rising\", \"detail\": \"Mansfield RS -8.58 points o" +
  "ver 4 weeks (rising above +1)\"}, {\"met\": false, \"name\": \"momentum\", \"detail\": \"13-week rate of change -15.7%\"}" +
  ", {\"met\": false, \"name\": \"volume\", \"detail\": \"up-week volume does not exceed down-week volume over 10 weeks (r" +
  "atio 0.80)\"}, {\"met\": false, \"name\": \"no_overhead_resistance\", \"detail\": \"close 28.3% below the 52-week high 3" +
  "6.32 (at most 10% allowed)\"}], \"label\": \"STAGE 3\", \"stage\": 3, \"ma_10w\": 27.7929, \"ma_30w\": 29.3398, \"reasons\"" +
  ": [\"Stage 3 (topping): close 11.2% below the 30-week MA 29.34, which is flat (-0.75% over 4 weeks).\", \"Entered" +
  " stage 3 from stage 2 in the week ending 2026-02-20 as the 30-week MA lost its rise.\", \"37 weeks in stage 3; s" +
  "ub-stage 3B: late top (30-week MA rolling over or the top is mature).\", \"Top range: resistance 36.32, support " +
  "21.85; a close above resistance with the MA not falling would signal stage 2, below support stage 4.\", \"Mansfi" +
  "eld RS +17.94 and falling versus the index.\", \"SATA 1/10 (mansfield_rs_positive) -> STRONG (strength of the to" +
  "p).\"], \"strength\": \"STRONG\", \"sub_stage\": \"3B\", \"sata_score\": 1, \"week_ending\": \"2026-10-30\", \"mansfield_rs\": " +
  "17.9363, \"weeks_in_stage\": 37, \"mansfield_rs_trend\": \"falling\", \"ma_30w_slope_percent\": -0.748706, \"breakout_v" +
  "olume_ratio\": 0.928127, \"price_vs_ma_30w_percent\": -11.2267}, \"analysis_date\": \"2026-10-30\", \"market_regime\": " +
  "\"bear\", \"price_targets\": [{\"basis\": \"support (5 touches)\", \"price\": 25.9634, \"source\": \"support\", \"direction\":" +
  " \"bearish\", \"confidence\": 0.9416, \"distance_percent\": -0.32}, {\"basis\": \"support (2 touches)\", \"price\": 25.192" +
  "3, \"source\": \"support\", \"direction\": \"bearish\", \"confidence\": 0.744, \"distance_percent\": -3.28}, {\"basis\": \"re" +
  "sistance (9 touches)\", \"price\": 27.3335, \"source\": \"resistance\", \"direction\": \"bullish\", \"confidence\": 0.9801," +
  " \"distance_percent\": 4.94}, {\"basis\": \"DOUBLE_TOP\", \"price\": 24.5179, \"source\": \"pattern\", \"direction\": \"beari" +
  "sh\", \"confidence\": 0.6405, \"distance_percent\": -5.87}, {\"basis\": \"HEAD_AND_SHOULDERS\", \"price\": 24.3495, \"sour" +
  "ce\": \"pattern\", \"direction\": \"bearish\", \"confidence\": 0.7441, \"distance_percent\": -6.51}], \"regime_detail\": {\"" +
  "regime\": \"bear\", \"reasons\": [\"TGMI closed at 948.41, 20.43% below its 200-day SMA 1191.98.\", \"The 200-day SMA " +
  "is falling (-3.58% over 20 days; flat within +-0.25%).\", \"The index's weekly stage is STAGE 4.\", \"Bear: the in" +
  "dex is below a falling 200-day SMA and in a stage-4 decline.\"], \"index_close\": 948.4147, \"index_stage\": \"STAGE" +
  " 4\", \"index_symbol\": \"TGMI\", \"index_sma_200\": 1191.9837, \"index_sma_200_slope_percent\": -3.5788}, \"pattern_sig" +
  "nal\": {\"direction\": \"BEARISH\", \"pattern_count\": 11, \"net_confidence\": -0.1969, \"bearish_confidence\": 0.9976, \"" +
  "bullish_confidence\": 0.8007}, \"signal_reasons\": [\"STAGE 3 top: distribution risk\", \"patterns bearish (net -0.2" +
  ")\", \"close below a falling 50-day average\", \"market regime bear\"], \"stage_strength\": \"STRONG\", \"support_levels" +
  "\": [25.9634, 25.1923, 24.1471, 22.0318, 19.5758], \"enhanced_signal\": {\"score\": -0.4121, \"signal\": \"SELL\", \"rea" +
  "sons\": [\"rules SELL (score -0.48, weight 0.86)\", \"ML HOLD (p_up 0.49, weight 0.14): out-of-sample AUC 0.542 [0" +
  ".535, 0.551] (95%, 46 dates), lower bound above 0.5: min(0.5, 4 x (0.535 - 0.5))\"], \"weights\": {\"ml\": {\"reason" +
  "\": \"ml: out-of-sample AUC 0.542 [0.535, 0.551] (95%, 46 dates), lower bound above 0.5: min(0.5, 4 x (0.535 - 0" +
  ".5)): weight 0.1412\", \"weight\": 0.1412}, \"rules\": {\"reason\": \"rules: the base score: weight 0.8588 = 1 - the g" +
  "ated components' weights\", \"weight\": 0.8588}}, \"ml_weight\": 0.1412, \"confidence\": 0.5801, \"rules_weight\": 0.85" +
  "88}, \"recent_patterns\": [{\"type\": \"RANGE_BREAKOUT\", \"status\": \"forming\", \"end_date\": \"2026-10-27\", \"direction\"" +
  ": \"bearish\", \"confidence\": 0.5633, \"key_points\": [{\"date\": \"2026-09-29\", \"label\": \"range_low_1\", \"price\": 25.7" +
  "242}, {\"date\": \"2026-09-30\", \"label\": \"range_high_1\", \"price\": 28.6419}, {\"date\": \"2026-10-12\", \"label\": \"rang" +
  "e_low_2\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"range_high_2\", \"price\": 29.6256}, {\"date\": \"2026" +
  "-10-26\", \"label\": \"range_low_3\", \"price\": 24.9472}, {\"date\": \"2026-10-27\", \"label\": \"range_high_3\", \"price\": 2" +
  "8.5543}], \"start_date\": \"2026-09-29\", \"price_target\": 20.2688, \"breakout_level\": 24.9472, \"confidence_parts\": " +
  "{\"trend\": 0.7091, \"volume\": 0.6089, \"geometry\": 0.4676}, \"invalidation_level\": 29.6256}, {\"type\": \"HEAD_AND_SH" +
  "OULDERS\", \"status\": \"forming\", \"end_date\": \"2026-10-27\", \"direction\": \"bearish\", \"confidence\": 0.4929, \"key_po" +
  "ints\": [{\"date\": \"2026-09-30\", \"label\": \"left_shoulder\", \"price\": 28.6419}, {\"date\": \"2026-10-12\", \"label\": \"n" +
  "eckline_left\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"head\", \"price\": 29.6256}, {\"date\": \"2026-10" +
  "-26\", \"label\": \"neckline_right\", \"price\": 24.9472}, {\"date\": \"2026-10-27\", \"label\": \"right_shoulder\", \"price\":" +
  " 28.5543}], \"start_date\": \"2026-09-30\", \"price_target\": 20.4674, \"breakout_level\": 24.5499, \"confidence_parts\"" +
  ": {\"trend\": 0.377, \"volume\": 0.3615, \"geometry\": 0.6165}, \"invalidation_level\": 29.6256}, {\"type\": \"DOUBLE_BOT" +
  "TOM\", \"status\": \"forming\", \"end_date\": \"2026-10-26\", \"direction\": \"bullish\", \"confidence\": 0.5671, \"key_points" +
  "\": [{\"date\": \"2026-10-12\", \"label\": \"first_trough\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"neckli" +
  "ne\", \"price\": 29.6256}, {\"date\": \"2026-10-26\", \"label\": \"second_trough\", \"price\": 24.9472}], \"start_date\": \"20" +
  "26-10-12\", \"price_target\": 33.8074, \"breakout_level\": 29.6256, \"confidence_parts\": {\"trend\": 0.8235, \"volume\":" +
  " 0.7894, \"geometry\": 0.3277}, \"invalidation_level\": 24.9472}], \"risk_parameters\": {\"atr\": 1.2685, \"atr_stop\": " +
  "23.509, \"atr_percent\": 4.87, \"entry_price\": 26.0459, \"stop_method\": \"minimum_distance\", \"support_stop\": 25.646" +
  "3, \"risk_per_share\": 1.2685, \"suggested_stop\": 24.7774, \"suggested_target\": 27.3335, \"volatility_trend\": \"risi" +
  "ng\", \"reward_risk_ratio\": 1.02, \"is_high_volatility\": true, \"position_size_hint\": \"1% risk would need 20.5% of" +
  " capital: cap at 20% (risk 0.97% of capital)\", \"historical_volatility\": 0.441009, \"risk_per_share_percent\": 4." +
  "87, \"min_stop_distance_percent\": 4.87, \"volatility_stop_loss_levels\": {\"atr_1x\": 24.7774, \"atr_2x\": 23.509, \"a" +
  "tr_3x\": 22.2405, \"hv_1sd_20d\": 23.0029}, \"shares_per_100k_at_1pct_risk\": 788}, \"pipeline_version\": \"1.1.0\", \"d" +
  "etected_patterns\": [{\"type\": \"RANGE_BREAKOUT\", \"status\": \"forming\", \"end_date\": \"2026-10-27\", \"direction\": \"be" +
  "arish\", \"confidence\": 0.5845, \"key_points\": [{\"date\": \"2026-09-29\", \"label\": \"range_low_1\", \"price\": 25.7242}," +
  " {\"date\": \"2026-09-30\", \"label\": \"range_high_1\", \"price\": 28.6419}, {\"date\": \"2026-10-12\", \"label\": \"range_low" +
  "_2\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"range_high_2\", \"price\": 29.6256}, {\"date\": \"2026-10-2" +
  "6\", \"label\": \"range_low_3\", \"price\": 24.9472}, {\"date\": \"2026-10-27\", \"label\": \"range_high_3\", \"price\": 28.554" +
  "3}], \"start_date\": \"2026-09-29\", \"price_target\": 20.2688, \"breakout_level\": 24.9472, \"confidence_parts\": {\"tre" +
  "nd\": 0.7938, \"volume\": 0.6089, \"geometry\": 0.4676}, \"invalidation_level\": 29.6256}, {\"type\": \"HEAD_AND_SHOULDE" +
  "RS\", \"status\": \"forming\", \"end_date\": \"2026-10-27\", \"direction\": \"bearish\", \"confidence\": 0.4749, \"key_points\"" +
  ": [{\"date\": \"2026-09-30\", \"label\": \"left_shoulder\", \"price\": 28.6419}, {\"date\": \"2026-10-12\", \"label\": \"neckli" +
  "ne_left\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"head\", \"price\": 29.6256}, {\"date\": \"2026-10-26\"," +
  " \"label\": \"neckline_right\", \"price\": 24.9472}, {\"date\": \"2026-10-27\", \"label\": \"right_shoulder\", \"price\": 28.5" +
  "543}], \"start_date\": \"2026-09-30\", \"price_target\": 20.4674, \"breakout_level\": 24.5499, \"confidence_parts\": {\"t" +
  "rend\": 0.3051, \"volume\": 0.3615, \"geometry\": 0.6165}, \"invalidation_level\": 29.6256}, {\"type\": \"DOUBLE_BOTTOM\"" +
  ", \"status\": \"forming\", \"end_date\": \"2026-10-26\", \"direction\": \"bullish\", \"confidence\": 0.5671, \"key_points\": [" +
  "{\"date\": \"2026-10-12\", \"label\": \"first_trough\", \"price\": 25.9405}, {\"date\": \"2026-10-16\", \"label\": \"neckline\"," +
  " \"price\": 29.6256}, {\"date\": \"2026-10-26\", \"label\": \"second_trough\", \"price\": 24.9472}], \"start_date\": \"2026-1" +
  "0-12\", \"price_target\": 33.8074, \"breakout_level\": 29.6256, \"confidence_parts\": {\"trend\": 0.8235, \"volume\": 0.7" +
  "894, \"geometry\": 0.3277}, \"invalidation_level\": 24.9472}, {\"type\": \"DOUBLE_TOP\", \"status\": \"forming\", \"end_dat" +
  "e\": \"2026-10-16\", \"direction\": \"bearish\", \"confidence\": 0.3258, \"key_points\": [{\"date\": \"2026-09-30\", \"label\":" +
  " \"first_peak\", \"price\": 28.6419}, {\"date\": \"2026-10-12\", \"label\": \"neckline\", \"price\": 25.9405}, {\"date\": \"202" +
  "6-10-16\", \"label\": \"second_peak\", \"price\": 29.6256}], \"start_date\": \"2026-09-30\", \"price_target\": 22.7472, \"br" +
  "eakout_level\": 25.9405, \"confidence_parts\": {\"trend\": 0.3049, \"volume\": 0.4422, \"geometry\": 0.2781}, \"invalida" +
  "tion_level\": 29.6256}, {\"type\": \"BEAR_FLAG\", \"status\": \"failed\", \"end_date\": \"2026-09-30\", \"direction\": \"beari" +
  "sh\", \"confidence\": 0.3195, \"key_points\": [{\"date\": \"2026-09-14\", \"label\": \"pole_start\", \"price\": 30.5984}, {\"d" +
  "ate\": \"2026-09-29\", \"label\": \"pole_top\", \"price\": 25.7242}, {\"date\": \"2026-09-30\", \"label\": \"flag_high\", \"pric" +
  "e\": 28.6419}], \"start_date\": \"2026-09-14\", \"price_target\": 20.8499, \"breakout_level\": 25.7242, \"confidence_par" +
  "ts\": {\"trend\": 0.3625, \"volume\": 0.2319, \"geometry\": 0.3417}, \"invalidation_level\": 28.1613}], \"resistance_lev" +
  "els\": [27.3335, 27.8568, 28.7829, 29.506, 30.8743], \"analysis_timestamp\": \"2026-11-26T13:49:20.594Z\", \"support" +
  "_resistance\": {\"support\": [{\"price\": 25.9634, \"touches\": 5, \"strength\": 0.941625, \"last_touch_date\": \"2026-10-" +
  "12\", \"first_touch_date\": \"2026-01-26\"}, {\"price\": 25.1923, \"touches\": 2, \"strength\": 0.744, \"last_touch_date\":" +
  " \"2026-10-26\", \"first_touch_date\": \"2026-06-17\"}, {\"price\": 24.1471, \"touches\": 2, \"strength\": 0.501, \"last_to" +
  "uch_date\": \"2026-03-11\", \"first_touch_date\": \"2026-02-26\"}, {\"price\": 22.0318, \"touches\": 2, \"strength\": 0.490" +
  "5, \"last_touch_date\": \"2026-03-02\", \"first_touch_date\": \"2026-02-24\"}, {\"price\": 19.5758, \"touches\": 1, \"stren" +
  "gth\": 0.251, \"last_touch_date\": \"2025-11-11\", \"first_touch_date\": \"2025-11-11\"}], \"resistance\": [{\"price\": 27." +
  "3335, \"touches\": 9, \"strength\": 0.980082, \"last_touch_date\": \"2026-10-19\", \"first_touch_date\": \"2025-12-30\"}, " +
  "{\"price\": 27.8568, \"touches\": 5, \"strength\": 0.89125, \"last_touch_date\": \"2026-09-04\", \"first_touch_date\": \"20" +
  "26-01-05\"}, {\"price\": 28.7829, \"touches\": 3, \"strength\": 0.86975, \"last_touch_date\": \"2026-10-27\", \"first_touc" +
  "h_date\": \"2026-06-12\"}, {\"price\": 29.506, \"touches\": 9, \"strength\": 0.982078, \"last_touch_date\": \"2026-10-20\"," +
  " \"first_touch_date\": \"2025-12-23\"}, {\"price\": 30.8743, \"touches\": 6, \"strength\": 0.915469, \"last_touch_date\": " +
  "\"2026-09-11\", \"first_touch_date\": \"2026-01-08\"}]}, \"best_recent_pattern\": {\"type\": \"DOUBLE_TOP\", \"status\": \"ac" +
  "tive\", \"end_date\": \"2026-09-24\", \"direction\": \"bearish\", \"confidence\": 0.6494, \"key_points\": [{\"date\": \"2026-0" +
  "8-24\", \"label\": \"first_peak\", \"price\": 30.958}, {\"date\": \"2026-09-04\", \"label\": \"neckline\", \"price\": 27.7247}," +
  " {\"date\": \"2026-09-11\", \"label\": \"second_peak\", \"price\": 30.905}, {\"date\": \"2026-09-24\", \"label\": \"breakout\", " +
  "\"price\": 27.6288}], \"start_date\": \"2026-08-24\", \"price_target\": 24.5179, \"breakout_level\": 27.7247, \"confidenc" +
  "e_parts\": {\"trend\": 0.6492, \"volume\": 0.4082, \"geometry\": 0.7701}, \"invalidation_level\": 30.958}, \"recent_patt" +
  "ern_signal\": {\"direction\": \"BEARISH\", \"pattern_count\": 5, \"net_confidence\": -0.53, \"bearish_confidence\": 0.870" +
  "3, \"bullish_confidence\": 0.3403}, \"transition_probabilities\": {\"counts\": {\"STAGE 1\": {\"STAGE 1\": 6933, \"STAGE " +
  "2\": 487, \"STAGE 3\": 0, \"STAGE 4\": 235}, \"STAGE 2\": {\"STAGE 1\": 81, \"STAGE 2\": 25459, \"STAGE 3\": 759, \"STAGE 4\"" +
  ": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 226, \"STAGE 3\": 4827, \"STAGE 4\": 665}, \"STAGE 4\": {\"STAGE 1\": 605, " +
  "\"STAGE 2\": 0, \"STAGE 3\": 76, \"STAGE 4\": 19647}}, \"matrix\": {\"STAGE 1\": {\"STAGE 1\": 0.905683, \"STAGE 2\": 0.0636" +
  "185, \"STAGE 3\": 0, \"STAGE 4\": 0.0306989}, \"STAGE 2\": {\"STAGE 1\": 0.00307997, \"STAGE 2\": 0.96806, \"STAGE 3\": 0." +
  "0288604, \"STAGE 4\": 0}, \"STAGE 3\": {\"STAGE 1\": 0, \"STAGE 2\": 0.0395243, \"STAGE 3\": 0.844176, \"STAGE 4\": 0.1162" +
  "99}, \"STAGE 4\": {\"STAGE 1\": 0.0297619, \"STAGE 2\": 0, \"STAGE 3\": 0.00373869, \"STAGE 4\": 0.966499}}, \"symbols\": " +
  "500, \"next_week\": {\"STAGE 1\": 0, \"STAGE 2\": 0.0395243, \"STAGE 3\": 0.844176, \"STAGE 4\": 0.116299}, \"sample_size" +
  "\": 5718, \"current_stage\": \"STAGE 3\", \"estimated_through\": \"2026-10-30\", \"total_transitions\": 60000}}";
