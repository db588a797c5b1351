// In a folder that cannot be written (a read-only mount, which stops root too; else file modes
// for an unprivileged user), the set-up commands say which folder, before writing anything —
// not a bare `EACCES … mkdir` after a report of what they imported, nor another path.

import { chmodSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../helpers/fake-claude.js';
import { binPath, runCli } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { chownTree, IS_ROOT, probeMountNamespace, unprivilegedUser } from '../../system/fault/isolation.js';

const cleanups = useCleanups();

/** Runs a bin of ralph in `dir` made read-only; the folder is writable again afterwards. */
async function runReadOnly(dir: string, bin: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, NO_COLOR: '1' };
  const namespace = probeMountNamespace();
  if ('prefix' in namespace) {
    const [unshare, ...prefix] = namespace.prefix;
    // cd after the mount: a working folder opened before it would still be the writable one.
    const script = 'set -e; mount --bind "$1" "$1"; mount -o remount,bind,ro "$1"; cd "$1"; shift; exec "$@"';
    return runCommand(unshare!, [...prefix, 'sh', '-c', script, 'sh', dir, process.execPath, binPath(bin), ...args], { cwd: dir, env });
  }
  const user = IS_ROOT ? unprivilegedUser() : undefined;
  if (user) chownTree(dir, user.uid, user.gid);
  chmodSync(dir, 0o555);
  try {
    return await runCli(bin, args, { cwd: dir, env, ...(user ?? {}) });
  } finally {
    chmodSync(dir, 0o755);
  }
}

function folder(): TmpProject {
  const p = tmpProject({ 'prd.md': '- first\n' }, { git: false });
  cleanups.push(() => p.cleanup());
  return p;
}

describe('set-up commands in a folder that cannot be written', () => {
  it('ralph-enable-ci names the folder first, before reporting any import, and writes nothing', async () => {
    const p = folder();
    const r = await runReadOnly(p.dir, 'ralph-enable-ci', []);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`Cannot write to ${p.dir}: (read-only file system|permission denied) \\(nothing was written\\)`));
    expect(r.stdout).not.toContain('Imported');
    expect(r.stderr).not.toMatch(/EACCES|EROFS/);
    expect(readdirSync(p.dir)).toEqual(['prd.md']);
  });

  it('ralph-setup names the folder the project would be created in', async () => {
    const p = folder();
    const r = await runReadOnly(p.dir, 'ralph-setup', ['x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^Error: Cannot create the project x in ${p.dir}: (read-only file system|permission denied) \\(nothing was written\\)\\nhint: run ralph-setup in a folder you can write\\n$`,
      ),
    );
    expect(readdirSync(p.dir)).toEqual(['prd.md']);
  });

  it('the ralph-enable wizard too', async () => {
    const p = folder();
    const r = await runReadOnly(p.dir, 'ralph-enable', ['--non-interactive']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`Error: Cannot write to ${p.dir}: (read-only file system|permission denied)`));
    expect(readdirSync(p.dir)).toEqual(['prd.md']);
  });
});
