// ralph's git reads the user's global and system configuration as they were when it first ran
// git: what the agent writes into `~/.gitconfig` or `~/.config/git/` during the run (it can, run
// without a sandbox) is not obeyed — not a push redirected with `url.<x>.insteadOf`, not another
// identity, not a global ignore file hiding its files from ralph's commits — while the user's
// identity, conditional includes included, still works. git's location variables (alternate
// object folders, extra settings through GIT_CONFIG_COUNT) are never taken from the environment.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pushBranch } from '../../../lib/lifecycle/lifecycle-git.js';
import { commitWhatIsLeft } from '../../../lib/platform/git-leftovers.js';
import { configText, parseScopedListing } from '../../../lib/platform/git-user-config.js';
import { recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { atomicWriteCount } from '../../../lib/state/atomic-write.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const each of cleanup.splice(0)) each();
  resetGitBaselines();
});

interface Scene {
  project: TmpProject;
  home: string;
  env: NodeJS.ProcessEnv;
  outside: string;
  /** Appends `key = value` to a config file with git itself. */
  set: (file: string, key: string, value: string) => void;
}

/** A project whose user has a home of its own (identity in ~/.gitconfig), no git identity in the environment. */
function scene(): Scene {
  const outside = mkdtempSync(join(tmpdir(), 'ralph-user-config-'));
  const home = join(outside, 'home');
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_NOSYSTEM: '1' };
  for (const name of Object.keys(env)) if (/^GIT_(AUTHOR|COMMITTER)_/.test(name) || name === 'GIT_CONFIG_GLOBAL') delete env[name];
  const set = (file: string, key: string, value: string) => execFileSync('git', ['config', '--file', file, '--add', key, value]);
  set(join(home, '.gitconfig'), 'user.name', 'Start User');
  set(join(home, '.gitconfig'), 'user.email', 'start@example.com');
  const project = tmpProject({ 'a.txt': 'a\n' }, { git: true });
  cleanup.push(
    () => project.cleanup(),
    () => rmSync(outside, { recursive: true, force: true }),
  );
  return { project, home, env, outside, set };
}

const authorOf = (s: Scene) => execFileSync('git', ['log', '-1', '--format=%an <%ae>'], { cwd: s.project.dir, encoding: 'utf8' }).trim();

describe("ralph's git and the user's configuration", () => {
  it('keeps the identity of the run start; a user.email written during the run is not used', async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, s.env);
    s.set(join(s.home, '.gitconfig'), 'user.email', 'agent@evil.example');
    s.set(join(s.home, '.config', 'git', 'config'), 'user.name', 'Agent');
    writeFileSync(s.project.path('b.txt'), 'b\n');
    const result = await commitWhatIsLeft({ runner: nodeProcessRunner, cwd: s.project.dir, env: s.env }, 'work\n');
    expect(result).toEqual({ kind: 'committed' });
    expect(authorOf(s)).toBe('Start User <start@example.com>');
  });

  it('uses an identity from a conditional include that applies to the project', async () => {
    const s = scene();
    s.set(join(s.home, 'work.cfg'), 'user.email', 'work@example.com');
    s.set(join(s.home, '.gitconfig'), `includeIf.gitdir:${s.project.dir}/.path`, join(s.home, 'work.cfg'));
    await recordGitBaseline(s.project.dir, s.env);
    writeFileSync(s.project.path('b.txt'), 'b\n');
    await commitWhatIsLeft({ runner: nodeProcessRunner, cwd: s.project.dir, env: s.env }, 'work\n');
    expect(authorOf(s)).toBe('Start User <work@example.com>');
  });

  it('commits every file although a global ignore file written during the run hides them', async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, s.env);
    writeFileSync(join(s.outside, 'hide'), '*.md\n');
    s.set(join(s.home, '.gitconfig'), 'core.excludesFile', join(s.outside, 'hide'));
    writeFileSync(join(s.home, '.config', 'git', 'ignore'), '*.js\n');
    writeFileSync(s.project.path('new.md'), 'm\n');
    writeFileSync(s.project.path('new.js'), 'j\n');
    await commitWhatIsLeft({ runner: nodeProcessRunner, cwd: s.project.dir, env: s.env }, 'work\n');
    const files = execFileSync('git', ['ls-files'], { cwd: s.project.dir, encoding: 'utf8' }).split('\n');
    expect(files).toEqual(expect.arrayContaining(['new.md', 'new.js']));
  });

  it('pushes to the recorded remote although a url.insteadOf written during the run names another', async () => {
    const s = scene();
    const origin = join(s.outside, 'origin.git');
    const trap = join(s.outside, 'trap.git');
    execFileSync('git', ['init', '-q', '--bare', origin]);
    execFileSync('git', ['init', '-q', '--bare', trap]);
    s.project.git('remote', 'add', 'origin', origin);
    await recordGitBaseline(s.project.dir, s.env);
    for (const key of [`url.${trap}.insteadOf`, `url.${trap}.pushInsteadOf`]) {
      s.set(join(s.home, '.gitconfig'), key, origin);
      s.set(join(s.home, '.gitconfig'), key, 'ralph-recorded-remote:');
      s.set(join(s.home, '.config', 'git', 'config'), key, 'ralph-recorded-remote:');
    }
    const pushed = await pushBranch('main', { processRunner: nodeProcessRunner, cwd: s.project.dir, env: s.env });
    expect(pushed).toEqual({ ok: true });
    const refs = (repo: string) => execFileSync('git', ['--git-dir', repo, 'for-each-ref', '--format=%(refname)'], { encoding: 'utf8' }).trim();
    expect(refs(trap)).toBe('');
    expect(refs(origin)).toBe('refs/heads/main');
  });

  it('writes back its snapshot when something changed it during the run', async () => {
    const s = scene();
    await recordGitBaseline(s.project.dir, s.env);
    // The snapshot's file: the one git names as its global configuration in ralph's calls.
    const shown = await nodeProcessRunner.run('git', ['config', '--show-origin', '--global', 'user.email'], { cwd: s.project.dir, env: s.env });
    const snapshot = /^file:(\S+)\t/.exec(shown.stdout)?.[1];
    expect(snapshot).toBeDefined();
    expect(snapshot!.startsWith(s.home)).toBe(false);
    writeFileSync(snapshot!, '[user]\n\temail = agent@evil.example\n');
    writeFileSync(s.project.path('b.txt'), 'b\n');
    await commitWhatIsLeft({ runner: nodeProcessRunner, cwd: s.project.dir, env: s.env }, 'work\n');
    expect(authorOf(s)).toBe('Start User <start@example.com>');
  });

  it('takes its snapshot with no replace-by-rename: each copy is created once, in the new private folder', async () => {
    const s = scene();
    const before = atomicWriteCount();
    await recordGitBaseline(s.project.dir, s.env);
    expect(atomicWriteCount() - before).toBe(0);
    const shown = await nodeProcessRunner.run('git', ['config', '--show-origin', '--global', 'user.email'], { cwd: s.project.dir, env: s.env });
    const snapshot = /^file:(\S+)\t/.exec(shown.stdout)?.[1];
    expect(readFileSync(snapshot!, 'utf8')).toContain('email = "start@example.com"');
    expect(statSync(snapshot!).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(snapshot!)).mode & 0o777).toBe(0o700);
  });

  it('takes no alternate object folder and no GIT_CONFIG_COUNT settings from the environment', async () => {
    const s = scene();
    const other = tmpProject({ 'secret.txt': 'only elsewhere\n' }, { git: true });
    cleanup.push(() => other.cleanup());
    const blob = other.git('rev-parse', 'HEAD:secret.txt').trim();
    const hooks = join(s.outside, 'hooks');
    mkdirSync(hooks);
    const marker = join(s.outside, 'ran.log');
    writeFileSync(join(hooks, 'pre-commit'), `#!/bin/sh\necho pre-commit >> '${marker}'\n`);
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    const env = {
      ...s.env,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: other.path('.git/objects'),
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: hooks,
    };
    await recordGitBaseline(s.project.dir, env);
    const seen = await nodeProcessRunner.run('git', ['cat-file', '-e', blob], { cwd: s.project.dir, env });
    expect(seen.code).not.toBe(0);
    writeFileSync(s.project.path('b.txt'), 'b\n');
    const result = await nodeProcessRunner.run('git', ['commit', '-q', '-m', 'x', '--allow-empty'], { cwd: s.project.dir, env });
    expect(result.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(s.project.path('a.txt'), 'utf8')).toBe('a\n');
  });

  it('writes a snapshot git reads back to the same entries, whatever the values hold', () => {
    const s = scene();
    const source = join(s.outside, 'source.cfg');
    const values: Array<[string, string]> = [
      ['user.name', 'A "quoted" name\\with backslash'],
      ['url.https://example.com/a.b"c.insteadof', 'ex:'],
      ['alias.multi', 'line one\nline two\tand a tab'],
      ['core.excludesfile', '  spaces around  '],
      ['x.y.z', ''],
    ];
    for (const [key, value] of values) s.set(source, key, value);
    writeFileSync(source, `${readFileSync(source, 'utf8')}[flag]\n\tbare\n`);
    const list = (file: string) => execFileSync('git', ['config', '--file', file, '-z', '--list', '--show-scope'], { encoding: 'utf8' });
    const entries = parseScopedListing(list(source));
    expect(entries.at(-1)).toEqual({ scope: 'command', key: 'flag.bare', value: null });
    const copy = join(s.outside, 'copy.cfg');
    writeFileSync(copy, configText(entries));
    expect(list(copy)).toBe(list(source));
  });
});
