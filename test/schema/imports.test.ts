/**
 * Import structure of the product code (docs/ARCHITECTURE.md, "Layers"): every relative import of every .ts
 * file under the source folders (static `import` / `export ... from`, `import type`, side-effect imports and
 * `import('...')`) is read with a small tokenizer, `.js` specifiers are resolved to their `.ts` files, and
 * the resulting graph must have no cycle and keep the layer rules: the platform imports no domain and no
 * outer layer, an engine imports only engines and the platform, nothing under subgraphs/ imports an outer
 * layer, and the REST adapter reaches storage only through services. The cycle finder is itself checked on
 * small in-memory graphs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';

/** Folders of product code (the tests under test/ are not part of the layering). */
const SOURCE_ROOTS = ['app', 'cli', 'gateway', 'rest-compat', 'schema', 'subgraphs', 'bench'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const SOURCE_FILE = /\.m?ts$/;

/** Module -> the modules it imports (project-relative POSIX paths). */
type Graph = ReadonlyMap<string, readonly string[]>;

// ---------------------------------------------------------------------------------------------------------
// Reading the imports
// ---------------------------------------------------------------------------------------------------------

interface Token {
  kind: 'word' | 'punct' | 'string';
  text: string;
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const REGEX_PRECEDERS = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const WORD_CHAR = /[A-Za-z_$0-9]/;
const WORD = /[A-Za-z_$0-9]+/y;
const REGEX_KEYWORDS = new Set([
  'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await',
]);

/**
 * Tokens of a TypeScript source: words, string literals (their raw text) and single punctuation characters;
 * comments, template text and regular expressions are skipped (code inside `${...}` is tokenized).
 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  /** Brace depth at which each open template's `${` was entered. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const n = source.length;
  const last = (): Token | undefined => tokens[tokens.length - 1];
  const readTemplate = (): void => {
    // At the character after '`' or after the '}' closing a substitution.
    while (i < n) {
      const c = source[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        tokens.push({ kind: 'punct', text: '`' });
        return;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        templates.push(depth);
        depth++;
        tokens.push({ kind: 'punct', text: '(' });
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === "'" || c === '"') {
      const from = ++i;
      while (i < n && source[i] !== c && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      // The raw text: module specifiers carry no escapes.
      tokens.push({ kind: 'string', text: source.slice(from, i) });
      i++;
    } else if (c === '`') {
      i++;
      readTemplate();
    } else if (c === '/') {
      const prev = last();
      const isRegex =
        prev === undefined ||
        (prev.kind === 'punct' ? REGEX_PRECEDERS.has(prev.text) : prev.kind === 'word' && REGEX_KEYWORDS.has(prev.text));
      i++;
      if (isRegex) {
        let inClass = false;
        while (i < n && source[i] !== '\n') {
          const r = source[i];
          if (r === '\\') i++;
          else if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
          i++;
        }
        i++;
        while (i < n && /[a-z]/i.test(source[i])) i++;
        tokens.push({ kind: 'word', text: '<regex>' });
      } else tokens.push({ kind: 'punct', text: '/' });
    } else if (WORD_CHAR.test(c)) {
      WORD.lastIndex = i;
      WORD.test(source);
      tokens.push({ kind: 'word', text: source.slice(i, WORD.lastIndex) });
      i = WORD.lastIndex;
    } else if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
    } else {
      i++;
      if (c === '{') depth++;
      else if (c === '}') {
        depth--;
        if (templates.length > 0 && templates[templates.length - 1] === depth) {
          templates.pop();
          tokens.push({ kind: 'punct', text: ')' });
          readTemplate();
          continue;
        }
      }
      tokens.push({ kind: 'punct', text: c });
    }
  }
  return tokens;
}

/**
 * Module specifiers a source imports: `import ... from 'x'`, `import type ... from 'x'`, `import 'x'`,
 * `export ... from 'x'` and `import('x')`, in source order, each once.
 */
function importSpecifiers(source: string): string[] {
  const tokens = tokenize(source);
  const found = new Set<string>();
  // Index of the `import` / `export` keyword that opened the current statement, or -1.
  let statement = -1;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    const prev = tokens[k - 1];
    const afterDot = prev !== undefined && prev.kind === 'punct' && prev.text === '.';
    if (t.kind === 'word' && (t.text === 'import' || t.text === 'export') && !afterDot) {
      const next = tokens[k + 1];
      if (t.text === 'import' && next?.kind === 'punct' && next.text === '(') {
        const arg = tokens[k + 2];
        if (arg?.kind === 'string') found.add(arg.text);
        continue;
      }
      if (t.text === 'import' && next?.kind === 'string') {
        found.add(next.text);
        continue;
      }
      statement = k;
    } else if (t.kind === 'punct' && t.text === ';') {
      statement = -1;
    } else if (t.kind === 'string' && statement >= 0 && prev?.kind === 'word' && prev.text === 'from') {
      found.add(t.text);
      statement = -1;
    }
  }
  return [...found];
}

/** Project-relative path of the file a relative specifier names (`.js` -> `.ts`, `.mjs` -> `.mts`), or null for a package. */
function resolveSpecifier(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  return target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts').replace(/\.cjs$/, '.cts');
}

function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(rel);
      } else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(rel);
    }
  };
  for (const root of SOURCE_ROOTS) if (fs.existsSync(path.join(PROJECT_ROOT, root))) walk(root);
  return files.sort();
}

/** The import graph of the product code, and the relative specifiers that name no existing file. */
function readGraph(): { graph: Graph; unresolved: string[] } {
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of sourceFiles()) {
    const targets: string[] = [];
    for (const specifier of importSpecifiers(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target === null) continue;
      if (!fs.existsSync(path.join(PROJECT_ROOT, target))) unresolved.push(`${file} -> ${specifier}`);
      else if (!targets.includes(target)) targets.push(target);
    }
    graph.set(file, targets);
  }
  return { graph, unresolved };
}

// ---------------------------------------------------------------------------------------------------------
// Cycles
// ---------------------------------------------------------------------------------------------------------

/** One knot of mutually importing modules. */
interface Cycle {
  /** A shortest cycle of the knot, e.g. ['a', 'b', 'a']. */
  path: string[];
  /** Every module of the knot (its strongly connected component), sorted. */
  members: string[];
}

/**
 * The import cycles of a graph: one per strongly connected component with a cycle (Tarjan), with a shortest
 * cycle through it (the first in sorted order of its start on ties), listed by that start. Empty when the
 * graph is acyclic.
 */
function findCycles(graph: Graph): Cycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const targetsOf = (node: string): readonly string[] => graph.get(node) ?? [];
  // Iterative Tarjan: frames of [node, next target position].
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const frames: Array<[string, number]> = [[root, 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const [node, position] = frame;
      const targets = targetsOf(node);
      if (position < targets.length) {
        frame[1]++;
        const next = targets[position];
        if (!index.has(next)) {
          index.set(next, counter);
          low.set(next, counter++);
          stack.push(next);
          onStack.add(next);
          frames.push([next, 0]);
        } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1][0];
        low.set(parent, Math.min(low.get(parent)!, low.get(node)!));
      }
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || targetsOf(node).includes(node)) components.push(component.sort());
      }
    }
  }
  const cycles = components.map((members): Cycle => {
    const within = new Set(members);
    let best: string[] = [];
    for (const start of members) {
      const path = shortestCycle(graph, start, within);
      if (best.length === 0 || path.length < best.length) best = path;
    }
    return { path: best, members };
  });
  return cycles.sort((a, b) => (a.path[0] < b.path[0] ? -1 : 1));
}

/** A cycle as one line: its path, and the whole knot when it holds more modules than the path. */
function describeCycle(cycle: Cycle): string {
  const line = cycle.path.join(' -> ');
  if (cycle.members.length < cycle.path.length) return line;
  return `${line} (the knot holds ${cycle.members.length} modules: ${cycle.members.join(', ')})`;
}

/** Shortest path start -> ... -> start inside `within` (breadth-first). */
function shortestCycle(graph: Graph, start: string, within: ReadonlySet<string>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q];
    for (const next of graph.get(node) ?? []) {
      if (!within.has(next)) continue;
      if (next === start) {
        const cycle = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) cycle.push(at);
        return [start, ...cycle.slice(1).reverse(), start];
      }
      if (!parent.has(next)) {
        parent.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

// ---------------------------------------------------------------------------------------------------------
// Layer rules
// ---------------------------------------------------------------------------------------------------------

const OUTER_LAYERS = /^(app|rest-compat|cli|gateway)\//;
const DOMAIN = /^subgraphs\/(analysis|allocation|search)\//;
const ENGINE = /^subgraphs\/[^/]+\/engine\//;
const PLATFORM = /^subgraphs\/platform\//;

interface LayerRule {
  name: string;
  /** The importing modules the rule applies to. */
  from: (file: string) => boolean;
  /** True when the import breaks the rule. */
  breaks: (target: string) => boolean;
}

const LAYER_RULES: readonly LayerRule[] = [
  {
    name: 'the platform imports no domain and no outer layer',
    from: (file) => PLATFORM.test(file),
    breaks: (target) => DOMAIN.test(target) || OUTER_LAYERS.test(target),
  },
  {
    name: 'an engine imports only engines and the platform (no service, store, graphql, request, params)',
    from: (file) => ENGINE.test(file),
    breaks: (target) => !ENGINE.test(target) && !PLATFORM.test(target),
  },
  {
    name: 'nothing under subgraphs/ imports app/, rest-compat/, cli/ or gateway/',
    from: (file) => file.startsWith('subgraphs/'),
    breaks: (target) => OUTER_LAYERS.test(target),
  },
  {
    name: 'the REST adapter imports no store (it goes through the services)',
    from: (file) => file.startsWith('rest-compat/'),
    breaks: (target) => /(^|-)store\.ts$/.test(path.posix.basename(target)),
  },
];

/** Every import that breaks a rule, as `rule: importer -> imported`. */
function layerViolations(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    for (const rule of LAYER_RULES) {
      if (!rule.from(file)) continue;
      for (const target of targets) if (rule.breaks(target)) found.push(`${rule.name}: ${file} -> ${target}`);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------

const graphOf = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));

describe('the import checker', () => {
  it('finds every kind of relative import and nothing in comments, strings or templates', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  type D,',
      "} from './multi/line.js';",
      "import './side-effect.js';",
      "export { e } from './e.js';",
      "export * as f from './f.js';",
      "export type { G } from './g.js';",
      "import fs from 'node:fs';",
      "// import { no } from './line-comment.js';",
      "/* import { no } from './block-comment.js'; */",
      "const text = \"import { no } from './string.js'\";",
      "const template = `import { no } from './template.js' ${1 + 2} from './template-tail.js'`;",
      "const pattern = /from './regex.js'/;",
      'export const value = 1',
      'function lazy() {',
      "  return import('./lazy.js');",
      '}',
      "const nested = `${`${await import('./in-template.js')}`}`;",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual([
      './a.js',
      '../b.js',
      './multi/line.js',
      './side-effect.js',
      './e.js',
      './f.js',
      './g.js',
      'node:fs',
      './lazy.js',
      './in-template.js',
    ]);
  });

  it('resolves .js specifiers to the .ts files and leaves packages out', () => {
    expect(resolveSpecifier('subgraphs/allocation/engine/caps.ts', '../../platform/errors.js')).toBe('subgraphs/platform/errors.ts');
    expect(resolveSpecifier('app/origins.ts', './migrations.js')).toBe('app/migrations.ts');
    expect(resolveSpecifier('app/origins.ts', 'fastify')).toBeNull();
  });

  it('finds the cycles of a graph with cycles, as paths', () => {
    const graph = graphOf({
      a: ['b'],
      b: ['c', 'x'],
      c: ['a'],
      x: ['y'],
      y: [],
      self: ['self'],
      p: ['q'],
      q: ['p', 'a'],
    });
    expect(findCycles(graph).map(describeCycle)).toEqual(['a -> b -> c -> a', 'p -> q -> p', 'self -> self']);
  });

  it('reports a shortest cycle of a knot and every module in it', () => {
    const graph = graphOf({ a: ['b'], b: ['c', 'd'], c: ['a'], d: ['b'], e: ['a'] });
    expect(findCycles(graph)).toEqual([{ path: ['b', 'd', 'b'], members: ['a', 'b', 'c', 'd'] }]);
    expect(findCycles(graph).map(describeCycle)).toEqual(['b -> d -> b (the knot holds 4 modules: a, b, c, d)']);
  });

  it('finds no cycle in an acyclic graph, even with shared targets (a diamond)', () => {
    expect(findCycles(graphOf({ top: ['left', 'right'], left: ['bottom'], right: ['bottom'], bottom: [] }))).toEqual([]);
    expect(findCycles(graphOf({}))).toEqual([]);
  });

  it('names each broken layer rule', () => {
    const graph = graphOf({
      'subgraphs/platform/db.ts': ['subgraphs/analysis/store.ts'],
      'subgraphs/allocation/engine/caps.ts': [
        'subgraphs/analysis/engine/prng.ts',
        'subgraphs/platform/errors.ts',
        'subgraphs/allocation/request/classes.ts',
      ],
      'subgraphs/search/service.ts': ['app/origins.ts'],
      'rest-compat/analysis-routes.ts': ['subgraphs/analysis/store.ts', 'subgraphs/analysis/service.ts'],
      'rest-compat/allocation-routes.ts': ['subgraphs/allocation/kelly-odds-store.ts', 'subgraphs/allocation/restore.ts'],
    });
    expect(layerViolations(graph)).toEqual([
      'the platform imports no domain and no outer layer: subgraphs/platform/db.ts -> subgraphs/analysis/store.ts',
      'an engine imports only engines and the platform (no service, store, graphql, request, params): ' +
        'subgraphs/allocation/engine/caps.ts -> subgraphs/allocation/request/classes.ts',
      'nothing under subgraphs/ imports app/, rest-compat/, cli/ or gateway/: subgraphs/search/service.ts -> app/origins.ts',
      'the REST adapter imports no store (it goes through the services): rest-compat/analysis-routes.ts -> subgraphs/analysis/store.ts',
      'the REST adapter imports no store (it goes through the services): ' +
        'rest-compat/allocation-routes.ts -> subgraphs/allocation/kelly-odds-store.ts',
    ]);
  });
});

describe('the product code', () => {
  const { graph, unresolved } = readGraph();

  it('is read whole: every source folder, every relative import resolved to a file', () => {
    expect(unresolved).toEqual([]);
    for (const root of SOURCE_ROOTS) expect([...graph.keys()].some((file) => file.startsWith(`${root}/`))).toBe(true);
    // The composition root reaches every domain's service.
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    visit('app/origins.ts');
    for (const domain of ['analysis', 'allocation', 'search']) expect(reached.has(`subgraphs/${domain}/service.ts`)).toBe(true);
  });

  it('has no import cycle', () => {
    expect(findCycles(graph).map(describeCycle)).toEqual([]);
  });

  it('keeps the layer rules', () => {
    expect(layerViolations(graph)).toEqual([]);
  });
});
