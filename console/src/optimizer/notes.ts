/**
 * The optimizer's binding notes in plain words. Each note starts with the spec field name of what bound
 * (`sector_caps.DEFAULT: capped ACME at 0.1000 (wanted 0.2734)`, `max_positions: ...`, or a strategy's
 * name); the view groups the notes by that constraint under a readable name, keeping the server's text
 * (the figures are its). Pure: no DOM, no React.
 */
import { LABELS, controlForField, fieldSegments } from './fields.js';

const STRATEGIES = new Set(['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED']);

/** Names for note prefixes that are not fields of the request. */
const OTHER_PREFIXES: Readonly<Record<string, string>> = {
  remaining_capital: 'Cash left over',
  caps: 'Position and sector caps',
  candidates: 'Eligible names',
  book: 'The book',
  ledoitWolf: 'Covariance estimate',
  total_capital: 'Total capital',
  demo: 'Demo result',
};

/** The fields a note prefix can name, by their leaf (binding notes do not say `risk_settings.`). */
const PARENTS = ['', 'riskSettings.', 'constraintPack.'] as const;

/** One constraint and the notes about it, in the order the server wrote them. */
export interface NoteGroup {
  /** The note prefix as the server wrote it (`sector_caps.DEFAULT`), or '' for notes without one. */
  constraint: string;
  /** What bound, in words (`Sector caps: DEFAULT (per-name cap)`). */
  label: string;
  /** The notes' text after the prefix. */
  notes: string[];
}

/** Readable name of a note prefix. */
export function constraintLabel(prefix: string): string {
  if (STRATEGIES.has(prefix)) return `Strategy ${prefix}`;
  const other = OTHER_PREFIXES[prefix];
  if (other) return other;
  const [head = '', ...rest] = prefix.split('.');
  for (const parent of PARENTS) {
    // Only an exact field: `risk_settings.` + an unknown leaf must not read as "Risk settings".
    const control = controlForField(parent + head);
    if (control && control === fieldSegments(parent + head).join('.')) {
      const label = LABELS[control];
      if (rest.length === 0) return label;
      const key = rest.join('.');
      return control === 'constraintPack.sectorCaps' && key === 'DEFAULT' ? `${label}: DEFAULT (per-name cap)` : `${label}: ${key}`;
    }
  }
  return prefix;
}

/** Splits `prefix: text` (a prefix is one token: letters, digits, `_` and `.`). */
export function splitNote(note: string): { constraint: string; text: string } {
  const m = /^([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_ -]+)?): (.*)$/s.exec(note);
  return m?.[1] && m[2] !== undefined ? { constraint: m[1], text: m[2] } : { constraint: '', text: note };
}

/** The notes grouped by constraint, groups in the order each first appears. */
export function groupBindingNotes(notes: readonly string[]): NoteGroup[] {
  const groups = new Map<string, NoteGroup>();
  for (const note of notes) {
    const { constraint, text } = splitNote(note);
    const group = groups.get(constraint) ?? { constraint, label: constraint ? constraintLabel(constraint) : 'Other', notes: [] };
    group.notes.push(text);
    groups.set(constraint, group);
  }
  return [...groups.values()];
}
