// The state folder of a deleted project, found by the path the new project will have: through a
// link in its parent's path too (the ledger is keyed by real paths), and never a second time.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerPath } from '../../../lib/state/ledger-path.js';
import { moveAsideStateOfGoneProject } from '../../../lib/state/gone-project-state.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function setting() {
  root = mkdtempSync(join(tmpdir(), 'ralph-gone-'));
  const env = { XDG_STATE_HOME: join(root, 'state') };
  const real = join(root, 'real');
  mkdirSync(real);
  symlinkSync(real, join(root, 'link'));
  return { root, env, real };
}

describe('moveAsideStateOfGoneProject', () => {
  it('finds the state of the project that was at the real path, reached through a link in the parent', () => {
    const { root, env, real } = setting();
    // The deleted project ran at real/demo: its state is keyed by that real path.
    mkdirSync(join(real, 'demo'));
    const ledger = ledgerPath(join(real, 'demo'), env, root);
    rmSync(join(real, 'demo'), { recursive: true });
    mkdirSync(dirname(ledger), { recursive: true });
    writeFileSync(ledger, '{}\n');

    const moved = moveAsideStateOfGoneProject(join(root, 'link', 'demo'), env, root, new Date('2026-12-07T06:00:00Z'));
    expect(moved?.from).toBe(dirname(ledger));
    expect(moved?.to).toBe(`${dirname(ledger)}.replaced-20261207T060000Z`);
    expect(existsSync(join(moved!.to, 'ledger.json'))).toBe(true);
    expect(existsSync(dirname(ledger))).toBe(false);
  });

  it('moves nothing when no state is kept for the path, and never over an earlier one', () => {
    const { root, env, real } = setting();
    expect(moveAsideStateOfGoneProject(join(real, 'new'), env, root, new Date())).toBeUndefined();
    const at = new Date('2026-12-07T06:00:00Z');
    for (let i = 0; i < 2; i++) {
      mkdirSync(dirname(ledgerPath(join(real, 'demo'), env, root)), { recursive: true });
      moveAsideStateOfGoneProject(join(real, 'demo'), env, root, at);
    }
    expect(readdirSync(join(root, 'state', 'ralph')).filter((name) => name.includes('.replaced-'))).toHaveLength(2);
  });
});
