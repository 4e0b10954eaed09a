/**
 * The chart-pattern detectors `detectPatterns` (patterns.ts) runs, in order: the sequence detectors over the
 * confirmed zig-zag pivots first, in list order, then, for each confirmed pivot oldest first, the pivot
 * detectors in list order. The order fixes the order of the candidates, which breaks exact ties in the
 * flood control; a new detector goes in its own file and is added here.
 */
import { cupAndHandleDetector } from './cup-and-handle.js';
import { doubleDetector } from './double.js';
import { flagDetector } from './flag.js';
import { headAndShouldersDetector } from './head-and-shoulders.js';
import { rangeBreakoutDetector } from './range-breakout.js';
import type { PatternDetector } from './scan.js';
import { triangleDetector } from './triangles.js';

export const PATTERN_DETECTORS: readonly PatternDetector[] = [
  doubleDetector,
  headAndShouldersDetector,
  triangleDetector,
  rangeBreakoutDetector,
  flagDetector,
  cupAndHandleDetector,
];
