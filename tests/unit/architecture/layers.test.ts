// The import graph of lib/, checked on resolved paths (the linter sees only the text of an
// import): pure code (the pure files of .oxlintrc.json) imports only pure code, lib/state and the
// error type, and loads no module at run time; the base folders import no concept room; only the command line imports the command
// line; verification knows neither the run record, the loop nor the command line; agents know
// neither the loop, the command line nor the monitor; and no file reaches itself through its
// imports, type imports and `import('…')` included. A new import across a line fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pureFiles, runTimeLoads } from '../../helpers/pure-files.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const LIB = join(REPO_ROOT, 'lib');
const PURE_FILES = pureFiles();

interface Edge {
  /** The importing file and the imported one, relative to lib/ (`breaker/circuit-breaker.ts`). */
  from: string;
  to: string;
}

function libFiles(): string[] {
  return readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
}

function importEdges(): Edge[] {
  return libFiles().flatMap((from) => {
    const text = readFileSync(join(LIB, from), 'utf8');
    const written = [...text.matchAll(/^(?:import|export)[^'"]*?from '(\.[^']+)'/gms), ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)];
    return written.map((m) => ({
      from,
      to: normalize(join(dirname(from), m[1]!)).replace(/\.js$/, '.ts'),
    }));
  });
}

const folderOf = (file: string): string => (file.includes('/') ? file.split('/')[0]! : file);

/** Folders below every concept room: they import only each other (and the error type). */
const BASE = ['errors.ts', 'platform', 'state', 'text'];

const FORBIDDEN: Array<{ rule: string; applies: (from: string) => boolean; forbidden: (to: string) => boolean }> = [
  { rule: 'only the command line imports the command line', applies: (f) => folderOf(f) !== 'cli', forbidden: (t) => folderOf(t) === 'cli' },
  { rule: 'the base folders import no concept room', applies: (f) => BASE.includes(folderOf(f)), forbidden: (t) => !BASE.includes(folderOf(t)) },
  {
    rule: 'verification knows neither the run record, the loop nor the command line',
    applies: (f) => folderOf(f) === 'verify',
    forbidden: (t) => ['run-record', 'loop', 'cli'].includes(folderOf(t)),
  },
  {
    rule: 'agents know neither the loop, the command line nor the monitor',
    applies: (f) => folderOf(f) === 'agents',
    forbidden: (t) => ['loop', 'cli', 'monitor'].includes(folderOf(t)),
  },
  {
    rule: 'parallel loops know neither the command line nor the monitor',
    applies: (f) => folderOf(f) === 'parallel',
    forbidden: (t) => ['cli', 'monitor'].includes(folderOf(t)),
  },
];

/**
 * Pairs of folders that import each other. A room's loop step takes the run (loop/run.ts) and the
 * loop calls the step, so each room with a step pairs with loop/; the others are known knots. A
 * new pair fails here: import the other way round, or move the shared piece to the room it is about.
 */
const FOLDERS_IMPORTING_EACH_OTHER = [
  'agent-run ↔ loop',
  'agents ↔ analysis',
  'analysis ↔ loop',
  'breaker ↔ limits',
  'breaker ↔ loop',
  'config ↔ limits',
  'containment ↔ loop',
  'exit-gate ↔ loop',
  'exit-gate ↔ sessions',
  'lifecycle ↔ loop',
  'limits ↔ loop',
  'limits ↔ run-record',
  'loop ↔ run-record',
  'platform ↔ state',
];

function foldersImportingEachOther(): string[] {
  const pairs = new Set(importEdges().map((e) => `${folderOf(e.from)}|${folderOf(e.to)}`));
  return [...pairs]
    .map((pair) => pair.split('|') as [string, string])
    .filter(([a, b]) => a < b && pairs.has(`${b}|${a}`))
    .map(([a, b]) => `${a} ↔ ${b}`)
    .sort();
}

describe('imports go down the layers', () => {
  it('no new pair of folders imports each other', () => {
    expect(foldersImportingEachOther().filter((pair) => !FOLDERS_IMPORTING_EACH_OTHER.includes(pair))).toEqual([]);
  });

  it('the known pairs that import each other still do (a pair undone comes off the list)', () => {
    expect(FOLDERS_IMPORTING_EACH_OTHER.filter((pair) => !foldersImportingEachOther().includes(pair))).toEqual([]);
  });

  for (const { rule, applies, forbidden } of FORBIDDEN) {
    it(rule, () => {
      const crossings = importEdges()
        .filter((e) => applies(e.from) && forbidden(e.to))
        .map((e) => `${e.from} → ${e.to}`);
      expect(crossings).toEqual([]);
    });
  }

  it('pure code imports only pure code, lib/state and the error type', () => {
    const pure = new Set(PURE_FILES.map((f) => f.replace(/^lib\//, '')));
    const crossings = importEdges()
      .filter((e) => pure.has(e.from) && !pure.has(e.to) && folderOf(e.to) !== 'state' && e.to !== 'errors.ts')
      .map((e) => `${e.from} → ${e.to}`);
    expect(crossings).toEqual([]);
  });

  it('every file named pure exists (a moved file keeps its rule)', () => {
    const files = new Set(libFiles());
    expect(PURE_FILES.filter((f) => !files.has(f.replace(/^lib\//, '')))).toEqual([]);
  });

  it('pure code loads no module at run time: no require(), createRequire() or import()', () => {
    expect(runTimeLoads(PURE_FILES)).toEqual([]);
  });

  it('no file reaches itself through its imports, types and import() included (what madge --circular sees)', () => {
    const graph = new Map<string, string[]>();
    for (const e of importEdges()) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of libFiles()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('sees every lib file and resolves its imports (the check itself)', () => {
    const edges = importEdges();
    expect(libFiles().length).toBeGreaterThan(100);
    expect(edges.filter((e) => e.from === 'loop/iteration.ts').map((e) => folderOf(e.to))).toContain('agents');
    // An import() the code waits for is an import too (the command loads its work on demand).
    expect(edges.filter((e) => e.from === 'cli/queue/queue-commands.ts').map((e) => e.to)).toContain('queue/process-queue.ts');
    const files = new Set(libFiles());
    expect(edges.filter((e) => !files.has(e.to))).toEqual([]);
  });
});
