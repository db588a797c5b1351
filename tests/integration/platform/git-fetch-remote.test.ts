// A fetch or ls-remote of a named remote after the agent ran (a fleet job's end asks origin
// whether the state branch is there): the remote's `url` and `uploadpack` come from the
// repository's config, which the agent can write, and of two uploadpack values git takes the
// first, the repository's. A planted local URL with the agent's upload-pack would run its
// program beside the job's token. The gateway reaches the URL recorded at the run's start instead.

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

/** A project whose origin (a bare repository beside it) has `main` and `state`; the agent's program logs when it runs. */
function setUp(): { p: TmpProject; origin: string; script: string; ran: () => boolean } {
  const p = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  project = p;
  const origin = p.path('.git/origin.git');
  execFileSync('git', ['init', '-q', '--bare', origin]);
  p.git('remote', 'add', 'origin', origin);
  p.git('push', '-q', 'origin', 'HEAD:refs/heads/main', 'HEAD:refs/heads/state');
  const log = p.path('.git/ran.log');
  const script = p.path('.git/evil.sh');
  writeFileSync(script, `#!/bin/sh\necho ran >> '${log}'\nexec git-upload-pack "$@"\n`);
  chmodSync(script, 0o755);
  return { p, origin, script, ran: () => existsSync(log) && readFileSync(log, 'utf8') !== '' };
}

const lsRemote = (p: TmpProject) => nodeProcessRunner.run('git', ['ls-remote', '--exit-code', '--heads', 'origin', 'refs/heads/state'], { cwd: p.dir, env });
const fetch = (p: TmpProject) =>
  nodeProcessRunner.run('git', ['fetch', '--quiet', 'origin', '+refs/heads/state:refs/remotes/origin/state'], { cwd: p.dir, env });

describe('fetch and ls-remote of a named remote', () => {
  it("run no upload-pack the agent set for the remote, and still reach the remote's recorded URL", async () => {
    const { p, script, ran } = setUp();
    await recordGitBaseline(p.dir, env);
    p.git('config', 'remote.origin.uploadpack', script);

    const listed = await lsRemote(p);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('refs/heads/state');
    const fetched = await fetch(p);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(p.git('rev-parse', 'refs/remotes/origin/state').trim()).toBe(p.git('rev-parse', 'HEAD').trim());
    expect(ran()).toBe(false);
    // Outside ralph the same call runs the agent's program: the plant is live.
    execFileSync('git', ['ls-remote', 'origin'], { cwd: p.dir, env, stdio: 'ignore' });
    expect(ran()).toBe(true);
  });

  it('go to the recorded URL when the agent points the remote at a repository of its own', async () => {
    const { p, script, ran } = setUp();
    await recordGitBaseline(p.dir, env);
    const planted = p.path('.git/planted.git');
    execFileSync('git', ['init', '-q', '--bare', planted]);
    p.git('config', 'remote.origin.url', planted);
    p.git('config', 'remote.origin.uploadpack', script);

    const listed = await lsRemote(p);
    // The planted repository has no `state`: an answer from it would say code 2.
    expect(listed.code, listed.stderr).toBe(0);
    expect((await fetch(p)).code).toBe(0);
    expect(ran()).toBe(false);
  });

  it('refuses a remote the run did not start with, naming it', async () => {
    const { p, origin } = setUp();
    await recordGitBaseline(p.dir, env);
    p.git('remote', 'add', 'later', origin);
    await expect(nodeProcessRunner.run('git', ['fetch', '--quiet', 'later'], { cwd: p.dir, env })).rejects.toThrow(
      'git remote "later" was not configured when the run started; ralph fetches only from remotes recorded then',
    );
  });
});

describe('remotes recorded at the start', () => {
  it("include a partial clone's remote, whose fetch line names its filter", async () => {
    const { p } = setUp();
    p.git('config', 'remote.origin.promisor', 'true');
    p.git('config', 'remote.origin.partialclonefilter', 'blob:none');
    await recordGitBaseline(p.dir, env);

    const listed = await lsRemote(p);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('refs/heads/state');
  });
});

describe('a git:// remote', () => {
  it('runs no core.gitProxy the agent wrote into the config', async () => {
    const { p, script, ran } = setUp();
    // Nothing listens on port 1: git's own connection fails, a proxy would run first.
    p.git('remote', 'set-url', 'origin', 'git://127.0.0.1:1/origin.git');
    await recordGitBaseline(p.dir, env);
    p.git('config', 'core.gitProxy', script);

    const listed = await lsRemote(p);
    expect(listed.code).not.toBe(0);
    expect(ran()).toBe(false);
    // Outside ralph the same call runs the agent's program: the plant is live.
    expect(() => execFileSync('git', ['ls-remote', 'origin'], { cwd: p.dir, env, stdio: 'ignore' })).toThrow();
    expect(ran()).toBe(true);
  });
});
