// ralph run as root on a project another user owns (a CI container, `sudo ralph`): git refuses
// such a repository ("dubious ownership") unless told it is safe. ralph's own git opens the one
// folder the run was started on, and no other; and since that repository's config is its
// owner's, not root's, none of the programs it names runs from ralph's git (a clean filter, an
// ssh command), while the commits and backups ralph makes there work. Needs root.

import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBackup, listBackups } from '../../lib/loop/backup.js';
import { isGitRepository } from '../../lib/project/detect-git.js';
import { commitWhatIsLeft } from '../../lib/platform/git-leftovers.js';
import { recordGitBaseline, resetGitBaselines } from '../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { ledgerPath } from '../../lib/state/ledger-path.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { SANDBOX_TEST_OWNER, requireRoot } from '../helpers/sandbox-tools.js';

const OWNER = SANDBOX_TEST_OWNER;
const env = { ...process.env, ...GIT_TEST_ENV };
const runner = nodeProcessRunner;
const cleanup: Array<() => void> = [];
beforeAll(() => requireRoot('a project owned by another user'));
afterEach(() => {
  for (const each of cleanup.splice(0)) each();
  resetGitBaselines();
});

function chownTree(path: string): void {
  chownSync(path, OWNER, OWNER);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name));
}

/** A committed project, then given to another user, with a filter and an ssh command in its own config. */
function foreignProject(): { project: TmpProject; marker: string } {
  const project = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  const outside = mkdtempSync(join(tmpdir(), 'ralph-foreign-'));
  cleanup.push(
    () => project.cleanup(),
    () => rmSync(outside, { recursive: true, force: true }),
  );
  const marker = join(outside, 'ran.log');
  const script = join(outside, 'owner.sh');
  writeFileSync(script, `#!/bin/sh\necho "$1" >> '${marker}'\nexec cat\n`);
  chmodSync(script, 0o755);
  project.git('config', 'filter.own.clean', `${script} clean`);
  project.git('config', 'core.sshCommand', `${script} ssh`);
  writeFileSync(project.path('.gitattributes'), '*.txt filter=own\n');
  project.git('add', '-A');
  project.git('commit', '-q', '-m', 'attributes');
  // What the owner's own git ran until now is the owner's business: the marker counts ralph's calls.
  rmSync(marker, { force: true });
  chownTree(project.dir);
  return { project, marker };
}

describe("ralph's git as root in a project another user owns", () => {
  it('works in the folder the run was started on, and runs nothing its config names', async () => {
    const { project, marker } = foreignProject();
    await recordGitBaseline(project.dir, env);
    expect(await isGitRepository(project.dir, { runner, env })).toBe(true);
    writeFileSync(project.path('b.txt'), 'b\n');
    expect(await commitWhatIsLeft({ runner, cwd: project.dir, env }, 'leftovers\n')).toEqual({ kind: 'committed' });
    const ledger = ledgerPath(project.dir, process.env, homedir());
    const backup = await createBackup({ projectDir: project.dir, processRunner: runner, env, loop: 1, keep: 3, ledger });
    expect(backup).toMatchObject({ ref: expect.stringMatching(/^refs\/ralph\/backups\/loop-1-/) });
    expect(await listBackups({ projectDir: project.dir, processRunner: runner, env, ledger })).toHaveLength(1);
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe('');
  });

  it('matches paths as its own config says (core.ignoreCase, which git sets for a case-insensitive disk)', async () => {
    const { project } = foreignProject();
    execFileSync('git', ['config', '--file', project.path('.git/config'), 'core.ignoreCase', 'true']);
    mkdirSync(project.path('Docs'));
    writeFileSync(project.path('Docs/a.md'), 'a\n');
    execFileSync('git', ['add', '--', 'Docs'], { cwd: project.dir, env: { ...env, GIT_CONFIG_PARAMETERS: "'safe.directory=*'" } });
    await recordGitBaseline(project.dir, env);
    mkdirSync(project.path('DOCS'));
    writeFileSync(project.path('DOCS/b.md'), 'b\n');

    expect(await commitWhatIsLeft({ runner, cwd: project.dir, env }, 'leftovers\n')).toEqual({ kind: 'committed' });

    const tree = execFileSync('git', ['ls-tree', '-r', '--name-only', 'HEAD'], {
      cwd: project.dir,
      env: { ...env, GIT_CONFIG_PARAMETERS: "'safe.directory=*'" },
      encoding: 'utf8',
    });
    expect(tree.split('\n')).toContain('Docs/b.md');
  });

  it("does not work in a folder its config's core.worktree names instead of the project", async () => {
    const { project } = foreignProject();
    const secret = mkdtempSync(join(tmpdir(), 'ralph-root-only-'));
    cleanup.push(() => rmSync(secret, { recursive: true, force: true }));
    writeFileSync(join(secret, 'root-only.txt'), 'secret\n');
    const head = () =>
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: project.dir, env: { ...env, GIT_CONFIG_PARAMETERS: "'safe.directory=*'" }, encoding: 'utf8' }).trim();
    const before = head();
    execFileSync('git', ['config', '--file', project.path('.git/config'), 'core.worktree', secret]);
    await recordGitBaseline(project.dir, env).catch(() => undefined);
    const refused = await commitWhatIsLeft({ runner, cwd: project.dir, env }, 'leftovers\n').catch((error: unknown) => error);
    expect((refused as Error).message).toContain('its config names');
    expect(head()).toBe(before);
  });

  it('still refuses another folder of that user that the run was not started on', async () => {
    const { project: started } = foreignProject();
    const { project: other } = foreignProject();
    await recordGitBaseline(started.dir, env);
    expect(await isGitRepository(other.dir, { runner, env })).toBe(false);
  });
});
