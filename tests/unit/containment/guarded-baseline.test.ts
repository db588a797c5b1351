// The guarded files' record of a dead run, as the next start reads it: what it names is put back
// inside the project only; a record naming anything else is not ralph's and is dropped unread.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedBaselinePath, undoChangesOfDeadRun } from '../../../lib/containment/guarded-baseline.js';
import { ledgerPath } from '../../../lib/state/ledger-path.js';
import { fakeClock } from '../../helpers/fake-clock.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function project() {
  root = mkdtempSync(join(tmpdir(), 'ralph-baseline-'));
  const dir = join(root, 'project');
  mkdirSync(join(dir, '.ralph'), { recursive: true });
  const env = { XDG_STATE_HOME: join(root, 'state') };
  const record = guardedBaselinePath(ledgerPath(dir, env, root));
  mkdirSync(dirname(record), { recursive: true });
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, success() {}, warn: (m: string) => warnings.push(m), error() {}, log() {} };
  const undo = () => undoChangesOfDeadRun({ projectDir: dir, env, homeDir: root!, logger: logger as never, clock: fakeClock() });
  return { root, dir, record, warnings, undo };
}

const bytes = (text: string) => Buffer.from(text).toString('base64');

describe('undoChangesOfDeadRun', () => {
  it('puts back a guarded file as the dead run found it, and removes the record', () => {
    const { dir, record, warnings, undo } = project();
    writeFileSync(join(dir, '.ralphrc'), 'MAX_CALLS_PER_HOUR=1000\n');
    writeFileSync(record, JSON.stringify({ files: [['.ralphrc', { bytes: bytes('MAX_CALLS_PER_HOUR=7\n'), mode: 0o644 }]], folders: [], testScript: null }));
    expect(undo().map((v) => v.path)).toEqual(['.ralphrc']);
    expect(readFileSync(join(dir, '.ralphrc'), 'utf8')).toBe('MAX_CALLS_PER_HOUR=7\n');
    expect(warnings.join('\n')).toContain('.ralphrc');
    expect(existsSync(record)).toBe(false);
  });

  it.each([['../outside.txt'], ['/etc/outside.txt'], ['.git/../../outside.txt']])('writes nothing for a record naming %s, and drops it', (name) => {
    const { root, dir, record, undo } = project();
    writeFileSync(record, JSON.stringify({ files: [[name, { bytes: bytes('planted\n'), mode: 0o644 }]], folders: [], testScript: null }));
    expect(undo()).toEqual([]);
    expect(existsSync(join(root, 'outside.txt'))).toBe(false);
    expect(existsSync(join(dir, '.ralphrc'))).toBe(false);
    expect(existsSync(record)).toBe(false);
  });

  it('drops a record naming a folder that is not a guarded one', () => {
    const { dir, record, undo } = project();
    writeFileSync(record, JSON.stringify({ files: [], folders: [['src', { kind: 'folder', id: '1:2' }]], testScript: null }));
    expect(undo()).toEqual([]);
    expect(existsSync(join(dir, 'src'))).toBe(false);
  });
});
