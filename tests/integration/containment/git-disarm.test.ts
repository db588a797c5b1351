// Nested repositories after a loop: one the loop created or changed loses every setting that
// names a program and every include from its config files, its hooks go to the quarantine, and a
// gitfile leading out of the project is moved there; one the user had before the run, untouched
// since, keeps its own settings (an LFS filter, say). The user's own `git status` afterwards runs
// nothing the agent planted.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { disarmNestedRepositories, recordNestedRepositories } from '../../../lib/containment/git-disarm.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { GIT_TEST_ENV, tmpProject } from '../../helpers/tmp-project.js';

const env = { ...process.env, ...GIT_TEST_ENV };
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const each of cleanups.splice(0)) each();
  resetGitBaselines();
});

function scene() {
  const project = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  const outside = mkdtempSync(join(tmpdir(), 'ralph-disarm-'));
  cleanups.push(
    () => project.cleanup(),
    () => rmSync(outside, { recursive: true, force: true }),
  );
  const log = join(outside, 'ran.log');
  const evil = join(outside, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\necho "$1" >> '${log}'\nexec cat\n`);
  chmodSync(evil, 0o755);
  const nested = (path: string, settings: Record<string, string>) => {
    const dir = project.path(path);
    mkdirSync(dir, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    for (const [key, value] of Object.entries(settings)) execFileSync('git', ['config', key, value], { cwd: dir });
    writeFileSync(join(dir, '.gitattributes'), '* filter=x\n');
    writeFileSync(join(dir, 'f.txt'), 'one\n');
    execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'filter.x.clean=cat', 'add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'n'], { cwd: dir, env });
    writeFileSync(join(dir, 'f.txt'), 'two\n');
  };
  const ctx = { projectDir: project.dir, env, processRunner: nodeProcessRunner };
  return {
    project,
    outside,
    evil: (tag: string) => `${evil} ${tag}`,
    forget: () => rmSync(log, { force: true }),
    ran: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    nested,
    ctx,
  };
}

describe('disarming nested repositories after a loop', () => {
  it("strips program settings and includes, moves hooks aside, and the user's git status then runs nothing", async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, env);
    const known = await recordNestedRepositories(s.ctx);
    s.nested('vendor/lib', {
      'filter.x.clean': s.evil('clean'),
      'core.fsmonitor': s.evil('fsmonitor'),
      'include.path': '../../../inc.cfg',
      'user.name': 'kept',
    });
    writeFileSync(s.project.path('vendor/lib/.git/hooks/post-checkout'), `#!/bin/sh\n${s.evil('hook')}\n`);
    s.project.git('-c', 'core.fsmonitor=false', 'add', 'vendor/lib');
    s.project.git('-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'gitlink');
    // The agent's own commit entered it (its settings are live): only what runs from here counts.
    expect(s.ran().length).toBeGreaterThan(0);
    s.forget();

    const disarmed = await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t');
    expect(disarmed.map((d) => ({ ...d, removed: [...d.removed].sort() }))).toEqual([
      {
        repository: 'vendor/lib',
        created: true,
        removed: [
          'vendor/lib/.git/config: core.fsmonitor',
          'vendor/lib/.git/config: filter.x.clean',
          'vendor/lib/.git/config: include.path',
          'vendor/lib/.git/hooks/post-checkout (hook)',
        ],
      },
    ]);
    expect(execFileSync('git', ['config', 'user.name'], { cwd: s.project.path('vendor/lib'), encoding: 'utf8' }).trim()).toBe('kept');
    expect(existsSync(s.project.path('.ralph/quarantine/t/vendor/lib/.git/hooks/post-checkout'))).toBe(true);
    execFileSync('git', ['status', '--porcelain'], { cwd: s.project.dir, env, stdio: 'ignore' });
    execFileSync('git', ['status', '--porcelain'], { cwd: s.project.path('vendor/lib'), env, stdio: 'ignore' });
    expect(s.ran()).toEqual([]);
    expect(await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t2')).toEqual([]);
  });

  it('looks into nested repositories committed inside nested ones', async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, env);
    const known = await recordNestedRepositories(s.ctx);
    s.nested('vendor/lib', {});
    s.nested('vendor/lib/deep/inner', { 'core.fsmonitor': s.evil('inner-fsmonitor'), 'filter.x.clean': s.evil('inner-clean') });
    const quiet = ['-c', 'core.fsmonitor=false', '-c', 'diff.ignoreSubmodules=dirty', '-c', 'core.hooksPath=/dev/null'];
    execFileSync('git', [...quiet, 'add', 'deep/inner'], { cwd: s.project.path('vendor/lib') });
    execFileSync('git', [...quiet, 'commit', '-q', '-m', 'inner'], { cwd: s.project.path('vendor/lib'), env, stdio: 'pipe' });
    s.project.git(...quiet, 'add', 'vendor/lib');
    s.project.git(...quiet, 'commit', '-q', '-m', 'gitlink');
    execFileSync('git', ['status', '--porcelain'], { cwd: s.project.dir, env, stdio: 'ignore' });
    expect(s.ran()).toContain('inner-fsmonitor');
    s.forget();
    const disarmed = await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t');
    expect(disarmed.map((d) => d.repository)).toEqual(['vendor/lib', 'vendor/lib/deep/inner']);
    execFileSync('git', ['status', '--porcelain'], { cwd: s.project.dir, env, stdio: 'ignore' });
    expect(s.ran()).toEqual([]);
  });

  it('finds a repository made in a folder git ignores, at any depth, and one made later in a folder seen before', async () => {
    const s = scene();
    writeFileSync(s.project.path('.gitignore'), 'build/\n');
    mkdirSync(s.project.path('build/out'), { recursive: true });
    await recordGitBaseline(s.project.dir, env);
    const known = await recordNestedRepositories(s.ctx);
    const deep = 'build/out/a/b/c/d/e/f/g/h/i/j/repo';
    s.nested(deep, { 'core.fsmonitor': s.evil('ignored-fsmonitor') });
    s.forget();
    const disarmed = await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t');
    expect(disarmed).toEqual([{ repository: deep, created: true, removed: [`${deep}/.git/config: core.fsmonitor`] }]);
    // The walk keeps what it read: a repository made next to one it knows is found all the same.
    s.nested('build/out/a/other', { 'core.hooksPath': s.evil('hooks') });
    const next = await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t2');
    expect(next).toEqual([{ repository: 'build/out/a/other', created: true, removed: ['build/out/a/other/.git/config: core.hookspath'] }]);
    execFileSync('git', ['status', '--porcelain'], { cwd: s.project.path(deep), env, stdio: 'ignore' });
    expect(s.ran()).toEqual([]);
  });

  it('leaves alone a nested repository the user had before the run, untouched since', async () => {
    const s = scene();
    s.nested('tools/lfs-repo', { 'filter.x.clean': 'cat', 'filter.x.smudge': 'cat' });
    await recordGitBaseline(s.project.dir, env);
    const known = await recordNestedRepositories(s.ctx);
    expect(await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t')).toEqual([]);
    expect(execFileSync('git', ['config', 'filter.x.clean'], { cwd: s.project.path('tools/lfs-repo'), encoding: 'utf8' }).trim()).toBe('cat');
  });

  it('moves aside a gitfile that leads out of the project', async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, env);
    const known = await recordNestedRepositories(s.ctx);
    const target = join(s.outside, 'elsewhere.git');
    execFileSync('git', ['init', '-q', '--bare', target]);
    execFileSync('git', ['config', '--file', join(target, 'config'), 'core.fsmonitor', s.evil('outside')]);
    mkdirSync(s.project.path('sub'));
    writeFileSync(s.project.path('sub/.git'), `gitdir: ${target}\n`);
    const disarmed = await disarmNestedRepositories(s.ctx, known, '.ralph/quarantine/t');
    expect(disarmed.map((d) => d.removed)).toEqual([[`.git (a gitfile leading out of the project, to ${target})`]]);
    expect(existsSync(s.project.path('sub/.git'))).toBe(false);
    expect(readFileSync(join(target, 'config'), 'utf8')).toContain('outside');
  });
});
