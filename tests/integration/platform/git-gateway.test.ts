// The hardened git runner in real git: settings and hooks planted after the run started run
// nothing through ralph's process runner (add, commit, diff, write-tree, status), while the
// user's own filter from before the run keeps working; the overrides never reach argv.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { gitOverrides, parseExecConfig } from '../../../lib/platform/git-config-pins.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
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

describe('gitOverrides', () => {
  const listing = (entries: Array<[string, string]>) => parseExecConfig(entries.map(([k, v]) => `${k}\n${v}\0`).join(''));

  it('pins program keys to their run-start values, empties new drivers and keys with = in the name stay whole', () => {
    const baseline = listing([['credential.helper', 'store'], ['filter.lfs.clean', 'git-lfs clean -- %f'], ['user.name', 'me']]);
    const current = listing([
      ['credential.helper', 'store'], ['credential.helper', '!evil'], ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.a=b.clean', 'evil'], ['core.fsmonitor', 'evil'],
    ]);
    const overrides = gitOverrides(baseline, current).map(([k, v]) => `${k}=${v}`);
    expect(overrides).toEqual(expect.arrayContaining([
      'core.fsmonitor=false', 'credential.helper=', 'credential.helper=store', 'filter.a=b.clean=', 'filter.a=b.required=false',
      'core.hookspath=/dev/null', 'protocol.ext.allow=never',
    ]));
    expect(overrides.filter((o) => o.startsWith('filter.lfs'))).toEqual([]);
    expect(overrides.indexOf('credential.helper=')).toBeLessThan(overrides.indexOf('credential.helper=store'));
  });
});
