// The ledger outside the project: where it lives (XDG state dir, one folder per real path), its
// file and folder modes, and that an unreadable ledger is reported and not trusted.

import { mkdtempSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  afterLedgerWrites,
  batchLedgerWrites,
  ledgerPath,
  ledgerValidationCount,
  readLedger,
  recordQueuedPrd,
  saveLedgerBreaker,
  saveLedgerRate,
  saveLedgerRun,
} from '../../../lib/state/ledger.js';
import { atomicWriteCount } from '../../../lib/state/atomic-write.js';
import { defaultCircuitBreakerFile } from '../../../lib/state/schemas.js';
import { newRunSpend } from '../../../lib/limits/limits-store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-ledger-'));
  dirs.push(dir);
  return dir;
}

describe('the ledger path', () => {
  it('is under $XDG_STATE_HOME/ralph, one folder per real project path: a readable slug and a hash', () => {
    const root = tmp();
    mkdirSync(join(root, 'My Project'));
    symlinkSync(join(root, 'My Project'), join(root, 'link'));
    const state = join(root, 'state');
    const path = ledgerPath(join(root, 'My Project'), { XDG_STATE_HOME: state }, '/home/nobody');
    expect(path).toMatch(new RegExp(`^${state}/ralph/My-Project-[0-9a-f]{12}/ledger\\.json$`));
    expect(ledgerPath(join(root, 'link'), { XDG_STATE_HOME: state }, '/home/nobody')).toBe(path);
    mkdirSync(join(root, 'other'));
    expect(dirname(ledgerPath(join(root, 'other'), { XDG_STATE_HOME: state }, '/x'))).not.toBe(dirname(path));
  });

  it('keeps the folder names of existing ledgers (the sha-256 of the real path, as node:crypto made them)', () => {
    // Paths that do not exist stand for themselves (no realpath); names computed with node:crypto.
    const named: Array<[string, string]> = [
      ['/nonexistent-ralph/My Project', 'My-Project-bd5fa124e6e1'],
      ['/nonexistent-ralph/ünïcode projekt', 'n-code-projekt-f8efd0f36a6a'],
      ['/nonexistent-ralph/日本語のプロジェクト', 'project-1cf61f957435'],
      ['/nonexistent-ralph/rocket 🚀', 'rocket--a9de1d52bdec'],
      [`/nonexistent-ralph/${'long-name-'.repeat(12)}`, 'long-name-long-name-long-name-long-name--7d2188084099'],
      ['/nonexistent-ralph/.hidden', 'hidden-2cc4e298392f'],
      ['/', 'project-8a5edab28263'],
      [`/${'a'.repeat(54)}`, `${'a'.repeat(40)}-f454c9e2a167`],
      [`/${'b'.repeat(55)}`, `${'b'.repeat(40)}-949341dd63d4`],
      [`/${'c'.repeat(63)}`, `${'c'.repeat(40)}-fd70bfd80fae`],
      [`/${'d'.repeat(127)}`, `${'d'.repeat(40)}-70504dc5f39a`],
    ];
    for (const [project, folder] of named) expect(ledgerPath(project, { XDG_STATE_HOME: '/state' }, '/home/u')).toBe(`/state/ralph/${folder}/ledger.json`);
  });

  it('falls back to ~/.local/state/ralph when XDG_STATE_HOME is unset or relative', () => {
    const project = tmp();
    expect(ledgerPath(project, {}, '/home/u')).toMatch(/^\/home\/u\/\.local\/state\/ralph\//);
    expect(ledgerPath(project, { XDG_STATE_HOME: 'rel' }, '/home/u')).toMatch(/^\/home\/u\/\.local\/state\/ralph\//);
  });
});

describe('the ledger file', () => {
  it('is written mode 600 in a 700 folder, and read back', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    saveLedgerRun(path, project, newRunSpend(1000, 'run-1'), true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(readLedger(path, () => undefined)?.run).toMatchObject({ unfinished: true, state: { run_id: 'run-1' } });
  });

  it('updates of several ledgers turn about (the units of a parallel run and the run) without reading back any this process wrote', () => {
    const state = { XDG_STATE_HOME: join(tmp(), 's') };
    const projects = [tmp(), tmp(), tmp()];
    const paths = projects.map((project) => ledgerPath(project, state, '/x'));
    const rate = { calls: 0, tokens: 10, lastReset: '2026010100', wall_ms: 1 };
    projects.forEach((project, i) => saveLedgerRate(paths[i]!, project, rate));
    const before = ledgerValidationCount();
    for (let calls = 1; calls <= 3; calls++) projects.forEach((project, i) => saveLedgerRate(paths[i]!, project, { ...rate, calls }));
    expect(ledgerValidationCount() - before).toBe(0);
    expect(paths.map((path) => readLedger(path, () => undefined)?.rate?.calls)).toEqual([3, 3, 3]);
  });

  it('keeps what another writer changed between two updates of this process, even at the same size', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    const rate = { calls: 1, tokens: 10, lastReset: '2026010100', wall_ms: 1 };
    saveLedgerRate(path, project, rate);
    saveLedgerRate(path, project, { ...rate, calls: 2 });
    // Another process (ralph-queue add --prd) rewrites the file in place, keeping its size.
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"tokens": 10', '"tokens": 99'));
    saveLedgerRun(path, project, newRunSpend(1000, 'run-1'), true);
    expect(readLedger(path, () => undefined)?.rate).toMatchObject({ calls: 2, tokens: 99 });
    // And by replacing it (a new file).
    const replaced = join(dirname(path), 'other.json');
    writeFileSync(replaced, readFileSync(path, 'utf8').replace('"calls": 2', '"calls": 7'));
    renameSync(replaced, path);
    recordQueuedPrd(path, project, '/prd.md');
    const kept = readLedger(path, () => undefined);
    expect(kept?.rate).toMatchObject({ calls: 7, tokens: 99 });
    expect(kept?.run).toMatchObject({ unfinished: true, state: { run_id: 'run-1' } });
    expect(kept?.queued_prds).toEqual(['/prd.md']);
  });

  it('an unreadable ledger is reported, never trusted', () => {
    const path = join(tmp(), 'ledger.json');
    writeFileSync(path, '{"version": 1, "run": garbage');
    const warnings: string[] = [];
    expect(readLedger(path, (m) => warnings.push(m))).toBeUndefined();
    expect(warnings[0]).toContain('is unreadable');
  });
});

describe('a batch of ledger updates', () => {
  it('writes the ledger once, with every update of the step, each seeing the ones before', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    const rate = { calls: 1, tokens: 10, lastReset: '2026010100', wall_ms: 1 };
    saveLedgerRate(path, project, rate);
    const before = atomicWriteCount();
    const inode = statSync(path).ino;
    const result = batchLedgerWrites(() => {
      saveLedgerRate(path, project, { ...rate, tokens: 20 });
      saveLedgerRun(path, project, newRunSpend(1000, 'run-1'), true);
      saveLedgerBreaker(path, project, { ...defaultCircuitBreakerFile(), consecutive_no_progress: 2 });
      // Nothing on disk yet: a kill here leaves the ledger as it was before the step.
      expect(statSync(path).ino).toBe(inode);
      return 'done';
    });
    expect(result).toBe('done');
    expect(atomicWriteCount() - before).toBe(1);
    const kept = readLedger(path, () => undefined);
    expect(kept?.rate).toMatchObject({ calls: 1, tokens: 20 });
    expect(kept?.run).toMatchObject({ unfinished: true, state: { run_id: 'run-1' } });
    expect(kept?.breaker).toMatchObject({ consecutive_no_progress: 2 });
  });

  it('a read inside the step sees what the step changed so far, as a copy of its own', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    const rate = { calls: 1, tokens: 10, lastReset: '2026010100', wall_ms: 1 };
    saveLedgerRate(path, project, rate);
    batchLedgerWrites(() => {
      saveLedgerRate(path, project, { ...rate, calls: 7 });
      const read = readLedger(path, () => undefined);
      expect(read?.rate?.calls).toBe(7);
      read!.rate!.calls = 99;
      expect(readLedger(path, () => undefined)?.rate?.calls).toBe(7);
    });
    expect(readLedger(path, () => undefined)?.rate?.calls).toBe(7);
  });

  it('writes what the step changed even when it throws, and takes no asynchronous step', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    expect(() =>
      batchLedgerWrites(() => {
        saveLedgerRun(path, project, newRunSpend(1000, 'run-2'), true);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(readLedger(path, () => undefined)?.run).toMatchObject({ state: { run_id: 'run-2' } });
    expect(() => batchLedgerWrites(async () => undefined)).toThrow('synchronous');
  });

  it('writes the views after the ledger, so a kill between them leaves the ledger ahead, never behind', () => {
    const project = tmp();
    const path = ledgerPath(project, { XDG_STATE_HOME: join(tmp(), 's') }, '/x');
    const rate = { calls: 1, tokens: 10, lastReset: '2026010100', wall_ms: 1 };
    saveLedgerRate(path, project, rate);
    const seenByView: Array<number | undefined> = [];
    batchLedgerWrites(() => {
      saveLedgerRate(path, project, { ...rate, calls: 2 });
      afterLedgerWrites(() => seenByView.push(readLedger(path, () => undefined)?.rate?.calls));
      expect(seenByView).toEqual([]);
    });
    expect(seenByView).toEqual([2]);
    // Outside a batch the view is written at once.
    afterLedgerWrites(() => seenByView.push(0));
    expect(seenByView).toEqual([2, 0]);
  });
});
