// The state folder of a moved project: taken over at the new path only when its old path is gone
// and its run is one the project's sessions folder records.

import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerPath, saveLedgerRun } from '../../../lib/state/ledger.js';
import { adoptStateOfMovedProject } from '../../../lib/run-record/moved-project-state.js';
import { newRunSpend } from '../../../lib/limits/limits-store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A project at `<root>/old` that ran `runId`, its state under `<root>/state`. */
function ranProject(runId = 'run-1') {
  const root = mkdtempSync(join(tmpdir(), 'ralph-moved-'));
  dirs.push(root);
  const env = { XDG_STATE_HOME: join(root, 'state') };
  const old = join(root, 'old');
  mkdirSync(join(old, '.ralph', 'sessions'), { recursive: true });
  writeFileSync(join(old, '.ralph', 'sessions', `${runId}.json`), '{}');
  const ledger = ledgerPath(old, env, root);
  saveLedgerRun(ledger, old, newRunSpend(1000, runId), false);
  return { root, env, old, ledger, moved: join(root, 'new') };
}
const sessions = (project: string) => join(project, '.ralph', 'sessions');

describe('adoptStateOfMovedProject', () => {
  it('a moved project takes its state folder along', () => {
    const p = ranProject();
    renameSync(p.old, p.moved);
    expect(adoptStateOfMovedProject(p.moved, sessions(p.moved), p.env, p.root)).toEqual({
      from: dirname(p.ledger),
      to: dirname(ledgerPath(p.moved, p.env, p.root)),
    });
    expect(existsSync(ledgerPath(p.moved, p.env, p.root))).toBe(true);
    expect(existsSync(p.ledger)).toBe(false);
  });

  it('a copy takes nothing: the original is still there', () => {
    const p = ranProject();
    cpSync(p.old, p.moved, { recursive: true });
    expect(adoptStateOfMovedProject(p.moved, sessions(p.moved), p.env, p.root)).toBeUndefined();
    expect(existsSync(p.ledger)).toBe(true);
  });

  it("another project's run is not taken over", () => {
    const p = ranProject();
    renameSync(p.old, p.moved);
    rmSync(join(sessions(p.moved), 'run-1.json'));
    writeFileSync(join(sessions(p.moved), 'run-2.json'), '{}');
    expect(adoptStateOfMovedProject(p.moved, sessions(p.moved), p.env, p.root)).toBeUndefined();
    expect(existsSync(p.ledger)).toBe(true);
  });
});
