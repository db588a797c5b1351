// The git gateway in real git: settings and hooks planted after the run started run nothing
// through ralph's process runner (add, commit, diff, write-tree, status), while the user's own
// filter from before the run keeps working; the overrides never reach argv. The repository is
// the one the run started with: a `.git` replaced by a gitfile stops the call, a swapped
// commondir is not followed; `git add` leaves nested repositories out; a push goes to the URL
// the remote had at start, and only to a remote known then; a worktree is added only inside
// the project.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitOverrides, parseExecConfig } from '../../../lib/platform/git-config-pins.js';
import { GitRepositoryChanged, prepareGitRun, recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { isLocalUrl } from '../../../lib/platform/git-push-url.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => {
  project?.cleanup();
  resetGitBaselines();
});

const env = { ...process.env, ...GIT_TEST_ENV };

function setUp(): { p: TmpProject; ran: () => string[]; evil: (tag: string) => string } {
  const p = tmpProject({ 'a.txt': 'a\n', 'b.md': 'b\n' }, { git: true });
  project = p;
  const log = p.path('.git/ran.log');
  const script = p.path('.git/evil.sh');
  writeFileSync(script, `#!/bin/sh\necho "$1" >> '${log}'\nexec cat\n`);
  chmodSync(script, 0o755);
  return {
    p,
    ran: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    evil: (tag) => `${script} ${tag}`,
  };
}

const git = (p: TmpProject, ...args: string[]) => nodeProcessRunner.run('git', args, { cwd: p.dir, env });

describe('git through the process runner', () => {
  it('runs no fsmonitor, filter, textconv, external diff or hook planted after the baseline', async () => {
    const { p, ran, evil } = setUp();
    await recordGitBaseline(p.dir, env);
    p.git('config', 'core.fsmonitor', evil('fsmonitor'));
    p.git('config', 'filter.evil.clean', evil('clean'));
    p.git('config', 'filter.evil.smudge', evil('smudge'));
    p.git('config', 'filter.evil.required', 'true');
    p.git('config', 'filter.evilp.process', evil('process'));
    p.git('config', 'diff.evil.textconv', evil('textconv'));
    p.git('config', 'diff.external', evil('external'));
    writeFileSync(p.path('.git/info/attributes'), '*.txt filter=evil diff=evil\n');
    writeFileSync(p.path('.gitattributes'), '*.md filter=evilp diff=evil\n');
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'reference-transaction', 'post-checkout', 'post-index-change']) {
      mkdirSync(p.path('.git/hooks'), { recursive: true });
      writeFileSync(p.path(`.git/hooks/${hook}`), `#!/bin/sh\n${evil(hook)} </dev/null\n`);
      chmodSync(p.path(`.git/hooks/${hook}`), 0o755);
    }
    writeFileSync(p.path('a.txt'), 'changed\n');
    writeFileSync(p.path('b.md'), 'changed\n');
    const status = await git(p, 'status', '--porcelain');
    expect(status.code, status.stderr).toBe(0);
    expect((await git(p, 'add', '-A')).code).toBe(0);
    expect((await git(p, 'write-tree')).code).toBe(0);
    const diff = await git(p, 'diff', '--cached', '--no-ext-diff');
    expect(diff.code, diff.stderr).toBe(0);
    expect((await git(p, 'commit', '-q', '-m', 'x')).code).toBe(0);
    const checkout = await git(p, 'checkout', '-q', '-b', 'other');
    expect(checkout.code, checkout.stderr).toBe(0);
    expect(ran()).toEqual([]);
    // The same commands outside ralph run them: the plants are live.
    writeFileSync(p.path('a.txt'), 'again\n');
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'y');
    expect(ran()).toEqual(expect.arrayContaining(['fsmonitor', 'clean', 'pre-commit', 'commit-msg', 'post-commit']));
  });

  it("keeps the user's own filter from before the run, and hooks still never run", async () => {
    const { p, ran, evil } = setUp();
    p.git('config', 'filter.mine.clean', evil('mine'));
    writeFileSync(p.path('.git/info/attributes'), '*.txt filter=mine\n');
    writeFileSync(p.path('.git/hooks/pre-commit'), `#!/bin/sh\n${evil('pre-commit')}\n`);
    chmodSync(p.path('.git/hooks/pre-commit'), 0o755);
    await recordGitBaseline(p.dir, env);
    writeFileSync(p.path('a.txt'), 'mine\n');
    expect((await git(p, 'add', '-A')).code).toBe(0);
    expect((await git(p, 'commit', '-q', '-m', 'x')).code).toBe(0);
    expect(ran().length).toBeGreaterThan(0);
    expect(new Set(ran())).toEqual(new Set(['mine']));
  });

  it('records the baseline at the first git call in a directory when no run recorded it', async () => {
    const { p, ran, evil } = setUp();
    expect((await git(p, 'rev-parse', '--git-dir')).code).toBe(0);
    p.git('config', 'core.fsmonitor', evil('fsmonitor'));
    writeFileSync(p.path('a.txt'), 'changed\n');
    expect((await git(p, 'add', '-A')).code).toBe(0);
    expect(ran()).toEqual([]);
  });

  it('reads no configuration for a call that vouches it reads no content: drivers added since stay as they are, pinned keys do not', async () => {
    const { p } = setUp();
    await recordGitBaseline(p.dir, env);
    p.git('config', 'filter.evil.clean', 'evil');
    const show = ['-c', 'alias.show-env=!printenv GIT_CONFIG_PARAMETERS', 'show-env'];
    const vouched = await nodeProcessRunner.run('git', show, { cwd: p.dir, env, gitReadsNoContent: true });
    expect(vouched.stdout).not.toContain('filter.evil.clean');
    expect(vouched.stdout).toContain("'core.fsmonitor=false'");
    expect(vouched.stdout).toContain("'core.hookspath=/dev/null'");
    expect((await git(p, ...show)).stdout).toContain("'filter.evil.clean='");
  });

  it('puts the overrides in the environment, never in argv', async () => {
    const { p } = setUp();
    const seen = await nodeProcessRunner.run('git', ['-c', 'alias.show-env=!printenv GIT_CONFIG_PARAMETERS', 'show-env'], { cwd: p.dir, env });
    expect(seen.stdout).toContain("'core.hookspath=/dev/null'");
    expect(seen.stdout).toContain("'protocol.ext.allow=never'");
  });
});

describe('where the repository is, asked at the start', () => {
  /** Each git command the gateway ran while `look` ran, as `git <args>`, through GIT_TRACE (a line per git process). */
  async function gitCalls(dir: string, look: (traced: NodeJS.ProcessEnv) => Promise<unknown>): Promise<string[]> {
    const trace = join(dir, '..', `${basename(dir)}.trace`);
    writeFileSync(trace, '');
    try {
      await look({ ...env, GIT_TRACE: trace });
      return readFileSync(trace, 'utf8')
        .split('\n')
        .flatMap((line) => (/built-in: git /.test(line) ? [line.replace(/.*built-in: /, '')] : []));
    } finally {
      rmSync(trace, { force: true });
    }
  }
  const revParses = async (dir: string, look: (traced: NodeJS.ProcessEnv) => Promise<unknown>) =>
    (await gitCalls(dir, look)).flatMap((call) => (call.startsWith('git rev-parse ') ? [call.slice('git rev-parse '.length)] : []));

  it('a folder of a work tree: one rev-parse gives its git dir, common dir and work tree, and the commit HEAD names', async () => {
    const p = tmpProject({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' }, { git: true });
    project = p;
    let anchor: Awaited<ReturnType<typeof recordGitBaseline>>;
    let head: string | null | undefined;
    const calls = await revParses(p.dir, async (traced) => (anchor = await recordGitBaseline(p.path('sub'), traced, (found) => (head = found))));
    expect(calls).toEqual(["--absolute-git-dir --git-common-dir --is-bare-repository --show-toplevel --verify -q 'HEAD^{commit}'"]);
    expect(anchor).toMatchObject({ gitDir: realpathSync(p.path('.git')), commonDir: realpathSync(p.path('.git')), workTree: realpathSync(p.dir) });
    expect(head).toBe(p.git('rev-parse', 'HEAD').trim());
  });

  it('a work tree with no commit yet: the same one rev-parse, HEAD names none', async () => {
    const p = tmpProject({ 'a.txt': 'a\n' }, { git: true, commit: false });
    project = p;
    let head: string | null | undefined;
    let anchor: Awaited<ReturnType<typeof recordGitBaseline>>;
    const calls = await revParses(p.dir, async (traced) => (anchor = await recordGitBaseline(p.dir, traced, (found) => (head = found))));
    expect(calls).toEqual(["--absolute-git-dir --git-common-dir --is-bare-repository --show-toplevel --verify -q 'HEAD^{commit}'"]);
    expect(anchor?.workTree).toBe(realpathSync(p.dir));
    expect(head).toBeNull();
  });

  it("finds the remotes in the configuration's listing, and records each one's push and fetch URLs with one `git remote -v`", async () => {
    const p = tmpProject({ 'a.txt': 'a\n' }, { git: true });
    project = p;
    p.git('remote', 'add', 'origin', 'https://example.invalid/fetch.git');
    p.git('remote', 'set-url', '--push', 'origin', 'https://example.invalid/push.git');
    p.git('remote', 'add', 'team.mirror', 'https://example.invalid/mirror.git');
    p.git('config', 'remote.pushDefault', 'origin');
    const calls = await gitCalls(p.dir, (traced) => recordGitBaseline(p.dir, traced));
    expect(calls.filter((call) => /^git remote\b/.test(call))).toEqual(['git remote -v']);
    for (const [remote, pushUrl, fetchUrl] of [
      ['origin', 'https://example.invalid/push.git', 'https://example.invalid/fetch.git'],
      ['team.mirror', 'https://example.invalid/mirror.git', 'https://example.invalid/mirror.git'],
    ]) {
      const push = await prepareGitRun(['push', remote!, 'HEAD'], { cwd: p.dir, env });
      expect(push.env.GIT_CONFIG_PARAMETERS).toContain(`'url.${pushUrl}.insteadof=`);
      const fetch = await prepareGitRun(['fetch', '--quiet', remote!, 'main'], { cwd: p.dir, env });
      expect(fetch.env.GIT_CONFIG_PARAMETERS).toContain(`'url.${fetchUrl}.insteadof=`);
      expect(fetch.args).not.toContain(remote);
    }
  });

  it('the git dir of a work tree and a bare repository: no work tree', async () => {
    const p = tmpProject({ 'a.txt': 'a\n' }, { git: true });
    project = p;
    const inGitDir = await recordGitBaseline(p.path('.git'), env);
    expect(inGitDir?.gitDir).toBe(realpathSync(p.path('.git')));
    expect(inGitDir?.workTree).toBeUndefined();
    execFileSync('git', ['init', '-q', '--bare', p.path('bare.git')], { env });
    const bare = await recordGitBaseline(p.path('bare.git'), env);
    expect(bare?.gitDir).toBe(realpathSync(p.path('bare.git')));
    expect(bare?.workTree).toBeUndefined();
    expect(await recordGitBaseline(tmpdir(), env)).toBeUndefined();
  });
});

describe('the repository the run started with', () => {
  const outside = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-gateway-'));
    const previous = project;
    project = {
      ...previous!,
      cleanup: () => {
        previous!.cleanup();
        rmSync(dir, { recursive: true, force: true });
      },
    };
    return dir;
  };

  it('stops at a .git replaced by a gitfile, naming it, and runs nothing there', async () => {
    const { p, ran, evil } = setUp();
    await recordGitBaseline(p.dir, env);
    renameSync(p.path('.git'), p.path('.git-moved'));
    writeFileSync(p.path('.git'), 'gitdir: .git-moved\n');
    p.git('config', 'core.fsmonitor', evil('fsmonitor'));
    const refused = await git(p, 'status', '--porcelain').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitRepositoryChanged);
    expect((refused as GitRepositoryChanged).exitCode).toBe(2);
    expect((refused as Error).message).toBe(
      `${p.path('.git')} was replaced by a file pointing to .git-moved since the run started; ralph runs no git command there`,
    );
    expect(ran()).toEqual([]);
  });

  it('does not follow a commondir written since, and stops before using it', async () => {
    const { p } = setUp();
    await recordGitBaseline(p.dir, env);
    mkdirSync(p.path('other'));
    writeFileSync(p.path('.git/commondir'), '../other\n');
    await expect(git(p, 'rev-parse', '--git-common-dir')).rejects.toThrow(/commondir was written since the run started/);
  });

  it('stops before using alternates written since, naming the file', async () => {
    const { p } = setUp();
    await recordGitBaseline(p.dir, env);
    const other = mkdtempSync(join(tmpdir(), 'ralph-alternate-'));
    try {
      execFileSync('git', ['init', '-q', other]);
      writeFileSync(p.path('.git/objects/info/alternates'), `${join(other, '.git', 'objects')}\n`);
      await expect(git(p, 'cat-file', '-e', 'HEAD')).rejects.toThrow(`${p.path('.git/objects/info/alternates')} was written since the run started`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('stops in a linked worktree whose gitdir was changed since, naming the file', async () => {
    const { p } = setUp();
    const worktree = p.path('.ralph/wt');
    p.git('worktree', 'add', '-q', '-b', 'side', worktree);
    await recordGitBaseline(worktree, env);
    writeFileSync(p.path('.git/worktrees/wt/gitdir'), '/elsewhere/.git\n');
    const refused = await nodeProcessRunner.run('git', ['status'], { cwd: worktree, env }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GitRepositoryChanged);
    expect((refused as Error).message).toBe(`${p.path('.git/worktrees/wt/gitdir')} was changed since the run started; ralph runs no git command there`);
  });

  it('leaves every nested repository out of git add, committed or not', async () => {
    const { p } = setUp();
    await recordGitBaseline(p.dir, env);
    for (const dir of ['vendor/lib', 'extra']) {
      mkdirSync(p.path(dir), { recursive: true });
      execFileSync('git', ['init', '-q'], { cwd: p.path(dir) });
      writeFileSync(p.path(`${dir}/f.txt`), 'f\n');
      execFileSync('git', ['add', '-A'], { cwd: p.path(dir) });
      execFileSync('git', ['commit', '-q', '-m', 'n'], { cwd: p.path(dir), env });
    }
    p.git('add', 'vendor/lib');
    p.git('commit', '-q', '-m', 'gitlink');
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'moved on'], { cwd: p.path('vendor/lib'), env });
    writeFileSync(p.path('new.txt'), 'new\n');
    expect((await git(p, 'add', '-A')).code).toBe(0);
    const staged = p.git('diff', '--cached', '--name-only').split('\n').filter(Boolean);
    expect(staged).toEqual(['new.txt']);
  });

  it('pushes to the URL origin had at start, runs no receive hook of a local remote, and refuses a remote added since', async () => {
    const { p, ran, evil } = setUp();
    const dir = outside();
    const origin = join(dir, 'origin.git');
    const trap = join(dir, 'trap.git');
    for (const bare of [origin, trap]) execFileSync('git', ['init', '-q', '--bare', bare]);
    writeFileSync(join(origin, 'hooks', 'pre-receive'), `#!/bin/sh\n${evil('pre-receive')} </dev/null\n`);
    chmodSync(join(origin, 'hooks', 'pre-receive'), 0o755);
    p.git('remote', 'add', 'origin', origin);
    await recordGitBaseline(p.dir, env);
    p.git('remote', 'set-url', 'origin', trap);
    p.git('remote', 'add', 'other', trap);
    const pushed = await git(p, 'push', '-u', 'origin', 'HEAD:refs/heads/work');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(execFileSync('git', ['--git-dir', origin, 'branch', '--list', 'work'], { encoding: 'utf8' })).toContain('work');
    expect(execFileSync('git', ['--git-dir', trap, 'branch', '--list'], { encoding: 'utf8' })).toBe('');
    expect(ran()).toEqual([]);
    await expect(git(p, 'push', 'other', 'HEAD:refs/heads/work')).rejects.toThrow('git remote "other" was not configured when the run started');
  });

  it('pushes to the recorded URL whatever url.*.insteadOf, pushInsteadOf or remote the agent plants for the name ralph gives git', async () => {
    const { p } = setUp();
    const dir = outside();
    const origin = join(dir, 'origin.git');
    const trap = join(dir, 'trap.git');
    for (const bare of [origin, trap]) execFileSync('git', ['init', '-q', '--bare', bare]);
    p.git('remote', 'add', 'origin', origin);
    await recordGitBaseline(p.dir, env);
    const alias = 'ralph-recorded-remote:';
    const plants: Array<[string, string]> = [
      [`url.${trap}.pushInsteadOf`, alias],
      [`url.${trap}.insteadOf`, alias],
      [`url.${trap}/x.pushInsteadOf`, 'r'],
      [`url.${trap}.insteadOf`, 'ralph-recorded-remote'],
      [`url.${trap}.pushInsteadOf`, 'ralph-recorded-remote'],
      [`url.${trap}.pushInsteadOf`, origin],
      [`remote.${alias}.pushurl`, trap],
      [`remote.${alias}.url`, trap],
    ];
    for (const [i, [key, value]] of plants.entries()) {
      p.git('config', '--add', key, value);
      const pushed = await git(p, 'push', 'origin', `HEAD:refs/heads/b${i}`);
      expect(pushed.code, `${key}: ${pushed.stderr}`).toBe(0);
      expect(execFileSync('git', ['--git-dir', trap, 'for-each-ref'], { encoding: 'utf8' }), key).toBe('');
      p.git('config', '--unset-all', key);
    }
    expect(execFileSync('git', ['--git-dir', origin, 'for-each-ref'], { encoding: 'utf8' }).split('\n').filter(Boolean)).toHaveLength(plants.length);
  });

  it('connects to no host, proxy or certificate the agent planted in .git/config since the run started (the credentials would go there)', async () => {
    const { p } = setUp();
    const connections: string[] = [];
    const server = createServer((socket) => {
      connections.push('connected');
      socket.destroy();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const port = (server.address() as AddressInfo).port;
      p.git('remote', 'add', 'origin', `https://ralph-test.invalid:${port}/o/r.git`);
      await recordGitBaseline(p.dir, env);
      const plants: Array<Array<[string, string]>> = [
        [['http.curloptResolve', `ralph-test.invalid:${port}:127.0.0.1`]],
        [[`http.https://ralph-test.invalid:${port}/.curloptResolve`, `ralph-test.invalid:${port}:127.0.0.1`]],
        [['http.proxy', `http://127.0.0.1:${port}`]],
        [[`http.https://ralph-test.invalid:${port}.proxy`, `http://127.0.0.1:${port}`]],
      ];
      for (const planted of plants) {
        for (const [key, value] of planted) p.git('config', key, value);
        p.git('config', 'http.sslVerify', 'false');
        await git(p, 'push', 'origin', 'HEAD:refs/heads/work');
        expect(connections, JSON.stringify(planted)).toEqual([]);
        for (const [key] of planted) p.git('config', '--unset-all', key);
      }
    } finally {
      server.close();
    }
  });

  it('keeps http.sslVerify on when the agent turns it off since the run started, and as the user set it', async () => {
    const { p } = setUp();
    const url = 'https://ralph-test.invalid/o/r.git';
    p.git('remote', 'add', 'origin', url);
    p.git('config', 'http.https://ralph-test.invalid/own.git.sslVerify', 'false');
    await recordGitBaseline(p.dir, env);
    p.git('config', 'http.sslVerify', 'false');
    p.git('config', 'http.https://ralph-test.invalid/.sslVerify', 'no');
    const call = await prepareGitRun(['push', 'origin', 'HEAD:refs/heads/work'], { cwd: p.dir, env });
    const seen = (u: string) =>
      execFileSync('git', ['config', '--type=bool', '--get-urlmatch', 'http.sslverify', u], { cwd: p.dir, env: call.env, encoding: 'utf8' }).trim();
    expect(seen(url)).toBe('true');
    expect(seen('https://ralph-test.invalid/own.git')).toBe('false');
  });

  it('reads and writes no cookie jar the agent names in .git/config since the run started (a jar saved over a file of the user)', async () => {
    const { p } = setUp();
    const url = 'https://ralph-test.invalid/o/r.git';
    p.git('remote', 'add', 'origin', url);
    await recordGitBaseline(p.dir, env);
    const jar = join(outside(), 'bashrc');
    p.git('config', 'http.cookieFile', jar);
    p.git('config', 'http.saveCookies', 'true');
    p.git('config', 'http.https://ralph-test.invalid/.cookieFile', jar);
    p.git('config', 'http.https://ralph-test.invalid/.saveCookies', 'yes');
    const call = await prepareGitRun(['push', 'origin', 'HEAD:refs/heads/work'], { cwd: p.dir, env });
    const seen = (key: string, type: string) =>
      execFileSync('git', ['config', `--type=${type}`, '--get-urlmatch', key, url], { cwd: p.dir, env: call.env, encoding: 'utf8' }).trim();
    expect(seen('http.cookiefile', 'path')).toBe('');
    expect(seen('http.savecookies', 'bool')).toBe('false');
  });

  it('keeps the recorded URL, and a token in it, out of the push argv', async () => {
    const { p } = setUp();
    const url = 'https://x-access-token:ghs_secret123@github.com/o/r.git';
    p.git('remote', 'add', 'origin', url);
    await recordGitBaseline(p.dir, env);
    const call = await prepareGitRun(['push', '--quiet', 'origin', 'HEAD:refs/heads/work'], { cwd: p.dir, env });
    expect(call.args.join(' ')).not.toContain('github.com');
    const alias = call.args[call.args.indexOf('--quiet') + 1]!;
    expect(alias).toMatch(/^ralph-recorded-remote-[0-9a-f]{24}:$/);
    expect(call.env.GIT_CONFIG_PARAMETERS).toContain(`'url.${url}.insteadof=${alias}'`);
    const seen = await nodeProcessRunner.run('git', ['ls-remote', '--get-url', alias], { cwd: p.dir, env: call.env });
    expect(seen.stdout.trim()).toBe(url);
  });

  it('adds a worktree only inside the project, judged where its path really leads', async () => {
    const { p } = setUp();
    const dir = outside();
    await recordGitBaseline(p.dir, env);
    await expect(git(p, 'worktree', 'add', '-q', '-b', 'u1', join(dir, 'escape'))).rejects.toThrow(/adds git worktrees only inside the project/);
    await expect(git(p, 'worktree', 'add', '-q', '-b', 'u2', '../../escape-wt')).rejects.toThrow(/refused/);
    mkdirSync(p.path('.ralph'), { recursive: true });
    symlinkSync(dir, p.path('.ralph/worktrees'));
    await expect(git(p, 'worktree', 'add', '-q', '-b', 'u3', '.ralph/worktrees/u3')).rejects.toThrow(/refused/);
    expect(existsSync(join(dir, 'escape'))).toBe(false);
    expect(existsSync(join(dir, 'u3'))).toBe(false);
    const inside = await git(p, 'worktree', 'add', '-q', '-b', 'u4', 'wt/u4');
    expect(inside.code, inside.stderr).toBe(0);
  });

  it('tells local remotes from ssh and http ones', () => {
    expect(['/srv/repo.git', '../repo', 'file:///srv/repo.git', 'repo'].map(isLocalUrl)).toEqual([true, true, true, true]);
    expect(['git@github.com:o/r.git', 'https://github.com/o/r', 'ssh://h/r'].map(isLocalUrl)).toEqual([false, false, false]);
  });
});

describe('gitOverrides', () => {
  const listing = (entries: Array<[string, string]>) => parseExecConfig(entries.map(([k, v]) => `${k}\n${v}\0`).join(''));

  it('pins program keys to their run-start values, empties new drivers and keys with = in the name stay whole', () => {
    const baseline = listing([
      ['credential.helper', 'store'],
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['user.name', 'me'],
    ]);
    const current = listing([
      ['credential.helper', 'store'],
      ['credential.helper', '!evil'],
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.a=b.clean', 'evil'],
      ['core.fsmonitor', 'evil'],
    ]);
    const overrides = gitOverrides(baseline, current).map(([k, v]) => `${k}=${v}`);
    expect(overrides).toEqual(
      expect.arrayContaining([
        'core.fsmonitor=false',
        'credential.helper=',
        'credential.helper=store',
        'filter.a=b.clean=',
        'filter.a=b.required=false',
        'core.hookspath=/dev/null',
        'protocol.ext.allow=never',
      ]),
    );
    expect(overrides.filter((o) => o.startsWith('filter.lfs'))).toEqual([]);
    expect(overrides.indexOf('credential.helper=')).toBeLessThan(overrides.indexOf('credential.helper=store'));
  });
});
