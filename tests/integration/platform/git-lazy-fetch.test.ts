// A lazy fetch: git fetches an object it lacks from a promisor remote on its own, in the middle
// of a call that reaches no remote on purpose (`diff a...b`, `ls-tree`, `merge`). The agent can
// commit a tree that names an object no one has and configure a promisor remote whose
// upload-pack command, proxy or helper is its program; git would run it from ralph's call, and
// no override sets an uploadpack back (git takes the first of two, the repository's).

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => {
  project?.cleanup();
  resetGitBaselines();
});

const env = { ...process.env, ...GIT_TEST_ENV };
const MISSING_TREE = '2222222222222222222222222222222222222222';

/** A project, and what the agent's programs logged when they ran. */
function setUp(): { p: TmpProject; script: string; ran: () => string[] } {
  const p = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  project = p;
  const log = p.path('.git/ran.log');
  const script = p.path('.git/evil.sh');
  writeFileSync(script, `#!/bin/sh\necho "$1" >> '${log}'\nexit 1\n`);
  chmodSync(script, 0o755);
  return { p, script, ran: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

/**
 * What the agent does: branch `unit` gets a commit whose tree names a folder no one has, and
 * two promisor remotes name its program, one as upload-pack (the file transport allowed by
 * name), one as the proxy of the git transport (it logs the host then).
 */
function plant(p: TmpProject, script: string): void {
  const tree = execFileSync('git', ['mktree', '--missing'], { cwd: p.dir, env, input: `040000 tree ${MISSING_TREE}\tsrc\n` })
    .toString()
    .trim();
  const commit = p.git('commit-tree', tree, '-p', 'HEAD', '-m', 'the agent').trim();
  p.git('update-ref', 'refs/heads/unit', commit);
  p.git('config', 'remote.origin.url', p.dir);
  p.git('config', 'remote.origin.promisor', 'true');
  p.git('config', 'remote.origin.uploadpack', `${script} uploadpack`);
  p.git('config', 'protocol.file.allow', 'always');
  p.git('config', 'remote.proxied.url', 'git://127.0.0.1/x');
  p.git('config', 'remote.proxied.promisor', 'true');
  // git runs the proxy with the host and port, not through a shell.
  p.git('config', 'core.gitProxy', script);
}

describe('a lazy fetch from a promisor remote the agent planted', () => {
  it('runs none of its programs from a call that reaches no remote, vouched content-free or not', async () => {
    const { p, script, ran } = setUp();
    await recordGitBaseline(p.dir, env);
    plant(p, script);
    const calls: Array<[string[], boolean]> = [
      [['diff', '--name-only', '-z', '--no-renames', 'refs/heads/main...refs/heads/unit'], true],
      [['ls-tree', '-r', 'refs/heads/unit'], false],
      [['merge', '--no-ff', '--no-commit', '-q', 'refs/heads/unit'], false],
    ];
    for (const [args, vouched] of calls) {
      const result = await nodeProcessRunner.run('git', args, { cwd: p.dir, env, ...(vouched ? { gitReadsNoContent: true } : {}) });
      expect(result.code, args.join(' ')).not.toBe(0);
    }
    expect(ran()).toEqual([]);
    // The same call outside ralph runs the agent's program: the plants are live.
    expect(() => execFileSync('git', ['ls-tree', '-r', 'refs/heads/unit'], { cwd: p.dir, env, stdio: 'ignore' })).toThrow();
    expect(ran()).toContain('uploadpack');
  });

  it("pushes through the transport of the URL pushed to alone: a promisor remote of another one runs nothing of the agent's", async () => {
    const { p, script, ran } = setUp();
    const origin = p.path('.git/origin.git');
    execFileSync('git', ['init', '-q', '--bare', origin]);
    p.git('remote', 'add', 'pushed', origin);
    await recordGitBaseline(p.dir, env);
    plant(p, script);
    // The promisor remote of the file transport (the one pushed through) is the one left over.
    p.git('config', '--unset', 'remote.origin.promisor');
    const pushed = await nodeProcessRunner.run('git', ['push', '-q', 'pushed', 'refs/heads/unit:refs/heads/unit'], { cwd: p.dir, env });
    expect(pushed.code, pushed.stderr).not.toBe(0);
    expect(ran()).not.toContain('127.0.0.1');
    // Its own transport still works.
    const honest = await nodeProcessRunner.run('git', ['push', '-q', 'pushed', 'refs/heads/main:refs/heads/main'], { cwd: p.dir, env });
    expect(honest.code, honest.stderr).toBe(0);
  });
});
