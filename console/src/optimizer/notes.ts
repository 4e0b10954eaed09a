/**
 * The optimizer's binding notes in plain words. The graph carries them as free text only
 * (`optimizerDiagnostics.bindingNotes: [String!]!`, no field saying what bound), and the engine starts
 * every note with one token naming what bound: a spec field (`sector_caps.DEFAULT: capped ACME at
 * 0.1000 (wanted 0.2734)`, `max_positions: ...`), a strategy's name, or a word of its own (`caps:`,
 * `candidates:`). The view groups the notes by that leading token, whatever it is, and names the group:
 * a request field by its form label, a strategy (from the graph's `allocationStrategies`) as such, any
 * other token in words made from the token itself, so a prefix the server adds later groups and reads
 * without a change here. The server's text is kept (the figures are its). Pure: no DOM, no React.
 */
import { LABELS, controlForField, fieldSegments } from './fields.js';

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

/** A token in words: `remaining_capital` -> `Remaining capital`, `ledoitWolf` -> `Ledoit wolf`. */
export function tokenWords(token: string): string {
  const words = token
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\s]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : token;
}

/**
 * Readable name of a note prefix. `strategies` are the strategy names the graph offers
 * (`allocationStrategies { name }`); before it answers, a strategy's note reads as its words.
 */
export function constraintLabel(prefix: string, strategies: readonly string[] = []): string {
  if (strategies.includes(prefix)) return `Strategy ${prefix}`;
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
  return rest.length === 0 ? tokenWords(head) : `${tokenWords(head)}: ${rest.join('.')}`;
}

/** Splits `prefix: text` (a prefix is one token: letters, digits, `_` and `.`). */
export function splitNote(note: string): { constraint: string; text: string } {
  const m = /^([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_ -]+)?): (.*)$/s.exec(note);
  return m?.[1] && m[2] !== undefined ? { constraint: m[1], text: m[2] } : { constraint: '', text: note };
}

/** The notes grouped by their leading token, groups in the order each first appears. */
export function groupBindingNotes(notes: readonly string[], strategies: readonly string[] = []): NoteGroup[] {
  const groups = new Map<string, NoteGroup>();
  for (const note of notes) {
    const { constraint, text } = splitNote(note);
    const group = groups.get(constraint) ?? { constraint, label: constraint ? constraintLabel(constraint, strategies) : 'Other', notes: [] };
    group.notes.push(text);
    groups.set(constraint, group);
  }
  return [...groups.values()];
}
