/**
 * Stage transition table: how often a stock in stage i one week is in stage j the next week, counted over
 * many symbols' weekly stage histories and turned into row-normalised probabilities.
 *
 * - Counting: for every symbol and every week w whose stage and previous week's stage are both determined
 *   (1..4), the pair (stage[w-1] -> stage[w]) is counted in the bucket of week w's ISO week key. A bucket's
 *   "last date" is the Friday of its week (weekEndDate), the week's nominal close, so whether a week counts
 *   through a date never depends on whether its Friday was a trading day.
 * - Only complete weeks count. A week's stage is settled only when the week has closed, so `add` skips the
 *   symbol's last week unless the caller says it is complete (`{ lastWeekComplete: true }`, e.g. when the
 *   market calendar's next trading date falls in a later ISO week: see isWeekComplete in weekly.ts). All
 *   earlier weeks are complete by construction (a later bar exists).
 * - No look-ahead: probabilities(current, throughDate) uses only the buckets whose last date is on or before
 *   `throughDate`; a week that closes after that date, and everything later, is ignored.
 * - Probabilities: next_week[j] = count(current -> j) / count(current -> any), from the same cut-off. The
 *   `matrix` normalises every row the same way (a row without observations is all zeros); `counts` are
 *   the raw counts and `sample_size` the current row's total.
 * - Speed: buckets are sorted by week key once (after the last add / merge), with prefix sums of the 16
 *   counts, so a query is one binary search over the buckets' last dates plus 16 reads of the prefix sums.
 * - Mergeable and plain: workers each count their symbols and send `toJSON()` (structured-clone friendly)
 *   to the main thread, which merges them; merging is order-independent.
 */
import { STAGE_LABELS, type StageLabel, type StageNumber, type TransitionProbabilities } from './document.js';
import type { StageSeries } from './stage.js';
import { upperBound } from './sorted.js';
import { weekEndDate, type WeeklyBars } from './weekly.js';

/** Serialised table: plain data only. `counts` holds 16 numbers, index (from - 1) * 4 + (to - 1). */
export interface TransitionTableJson {
  version: 1;
  symbols: number;
  weeks: { key: string; lastDate: string; counts: number[] }[];
}

export interface TransitionAddOptions {
  /** Count the last week too (it is known to be complete). Default false: the last week is treated as partial. */
  lastWeekComplete?: boolean;
}

interface Bucket {
  lastDate: string;
  counts: Float64Array;
}

interface PrefixIndex {
  /** Last dates of the sorted buckets (ascending). */
  lastDates: string[];
  /** (buckets + 1) x 16 cumulative counts: row k = sum of the first k buckets. */
  prefix: Float64Array;
}

const WEEK_KEY = /^\d{4}-W\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function emptyRow(): Record<StageLabel, number> {
  return { 'STAGE 1': 0, 'STAGE 2': 0, 'STAGE 3': 0, 'STAGE 4': 0 };
}

export class TransitionTable {
  /** Symbols added (directly or through merged tables). */
  symbols = 0;
  private readonly buckets = new Map<string, Bucket>();
  private index: PrefixIndex | null = null;

  /**
   * Counts the transitions from week w-1 to w for every w with both stages determined, bucketed by
   * weekKeys[w]; the last week only when `options.lastWeekComplete` (see the header).
   */
  add(weekly: WeeklyBars, series: StageSeries, options: TransitionAddOptions = {}): void {
    const n = Math.min(weekly.weekKeys.length, series.stage.length);
    const end = options.lastWeekComplete ? n : n - 1;
    const stage = series.stage;
    for (let w = 1; w < end; w++) {
      const from = stage[w - 1];
      const to = stage[w];
      if (from < 1 || from > 4 || to < 1 || to > 4) continue;
      this.bucket(weekly.weekKeys[w], weekEndDate(weekly.dates[w])).counts[(from - 1) * 4 + (to - 1)]++;
    }
    this.symbols++;
    this.index = null;
  }

  merge(other: TransitionTable | TransitionTableJson): void {
    const json = other instanceof TransitionTable ? other.toJSON() : validateJson(other);
    for (const week of json.weeks) {
      const bucket = this.bucket(week.key, week.lastDate);
      for (let i = 0; i < 16; i++) bucket.counts[i] += week.counts[i];
    }
    this.symbols += json.symbols;
    this.index = null;
  }

  /** Plain, structured-clone-friendly form (weeks sorted by key). */
  toJSON(): TransitionTableJson {
    const keys = [...this.buckets.keys()].sort();
    return {
      version: 1,
      symbols: this.symbols,
      weeks: keys.map((key) => {
        const b = this.buckets.get(key) as Bucket;
        return { key, lastDate: b.lastDate, counts: Array.from(b.counts) };
      }),
    };
  }

  static fromJSON(json: TransitionTableJson): TransitionTable {
    const table = new TransitionTable();
    table.merge(json);
    return table;
  }

  /** Total transitions counted (all weeks). */
  get totalTransitions(): number {
    let total = 0;
    for (const b of this.buckets.values()) for (let i = 0; i < 16; i++) total += b.counts[i];
    return total;
  }

  /**
   * Row-normalised probabilities using only weeks whose last day is <= throughDate, conditioned on
   * `current`. Null when that row has no observations.
   */
  probabilities(current: StageNumber, throughDate: string): TransitionProbabilities | null {
    if (!(current >= 1 && current <= 4)) return null;
    const { lastDates, prefix } = this.prefixIndex();
    // k = number of buckets whose last date is <= throughDate (last dates ascend with the week keys).
    const k = upperBound(lastDates, throughDate);
    if (k === 0) return null;
    const base = k * 16;
    const row = (current - 1) * 4;
    const sample = prefix[base + row] + prefix[base + row + 1] + prefix[base + row + 2] + prefix[base + row + 3];
    if (sample === 0) return null;

    const matrix = {} as Record<StageLabel, Record<StageLabel, number>>;
    const counts = {} as Record<StageLabel, Record<StageLabel, number>>;
    let total = 0;
    for (let i = 0; i < 4; i++) {
      const c = emptyRow();
      let rowTotal = 0;
      for (let j = 0; j < 4; j++) {
        c[STAGE_LABELS[j]] = prefix[base + i * 4 + j];
        rowTotal += c[STAGE_LABELS[j]];
      }
      const p = emptyRow();
      if (rowTotal > 0) for (let j = 0; j < 4; j++) p[STAGE_LABELS[j]] = c[STAGE_LABELS[j]] / rowTotal;
      counts[STAGE_LABELS[i]] = c;
      matrix[STAGE_LABELS[i]] = p;
      total += rowTotal;
    }
    const label = STAGE_LABELS[current - 1];
    return {
      current_stage: label,
      next_week: { ...matrix[label] },
      sample_size: sample,
      matrix,
      counts,
      total_transitions: total,
      estimated_through: lastDates[k - 1],
      symbols: this.symbols,
    };
  }

  private bucket(key: string, lastDate: string): Bucket {
    let b = this.buckets.get(key);
    if (!b) {
      b = { lastDate, counts: new Float64Array(16) };
      this.buckets.set(key, b);
    } else if (lastDate > b.lastDate) {
      b.lastDate = lastDate;
    }
    return b;
  }

  private prefixIndex(): PrefixIndex {
    if (this.index) return this.index;
    const keys = [...this.buckets.keys()].sort();
    const lastDates = new Array<string>(keys.length);
    const prefix = new Float64Array((keys.length + 1) * 16);
    let latest = '';
    for (let k = 0; k < keys.length; k++) {
      const b = this.buckets.get(keys[k]) as Bucket;
      // Keeps the dates ascending even if a caller mixed unrelated calendars.
      latest = b.lastDate > latest ? b.lastDate : latest;
      lastDates[k] = latest;
      for (let i = 0; i < 16; i++) prefix[(k + 1) * 16 + i] = prefix[k * 16 + i] + b.counts[i];
    }
    this.index = { lastDates, prefix };
    return this.index;
  }
}

function validateJson(json: TransitionTableJson): TransitionTableJson {
  if (!json || json.version !== 1 || !Number.isInteger(json.symbols) || json.symbols < 0 || !Array.isArray(json.weeks)) {
    throw new TypeError('not a TransitionTableJson (version 1)');
  }
  for (const week of json.weeks) {
    if (
      !week ||
      typeof week.key !== 'string' ||
      !WEEK_KEY.test(week.key) ||
      typeof week.lastDate !== 'string' ||
      !DATE.test(week.lastDate) ||
      !Array.isArray(week.counts) ||
      week.counts.length !== 16 ||
      !week.counts.every((c) => Number.isInteger(c) && c >= 0)
    ) {
      throw new TypeError(`invalid TransitionTableJson week entry ${JSON.stringify(week)}`);
    }
  }
  return json;
}
