// Every operation of ralph and ralph-fleet that runs git, against a project where the agent has
// planted, after the run started, everything that makes git run a program: settings in the
// repository's config, in config.worktree, in an included file and through info/attributes and
// .gitattributes; hooks; a nested repository committed into the project and one left untracked,
// each with its own clean filter and fsmonitor; and, as a second attack, a `.git/commondir` that
// sends git to a copy of the config the agent controls (with an fsmonitor, a filter and origin
// pointing at a repository whose receive hook runs). A marker file proves nothing ran: each
// planted program appends its name to it. With the commondir swapped, an operation may also
// refuse to run (GitRepositoryChanged); it never runs anything the agent wrote. A third attack
// plants the same settings in the user's global configuration (`~/.gitconfig`, an include it
// names, `~/.config/git/config` and `attributes`), with `url.<x>.insteadOf` sending pushes to a
// trap repository: nothing runs and the trap receives nothing.

import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { disarmNestedRepositories, recordNestedRepositories } from '../../../lib/containment/git-disarm.js';
import { createBackup, listBackups } from '../../../lib/loop/backup.js';
import { runRollback } from '../../../lib/cli/ralph/rollback.js';
import { createContentSnapshotter } from '../../../lib/analysis/content-snapshot.js';
import * as lifecycle from '../../../lib/lifecycle/lifecycle-git.js';
import { commitLeftovers, readHead } from '../../../lib/queue/leftover-commit.js';
import { commitUnitLeftovers, listConflictedFiles } from '../../../lib/parallel/merge.js';
import { readRunBranch } from '../../../lib/parallel/worktrees.js';
import { readGit } from '../../../lib/parallel/git.js';
import { detectGitInfo, isGitRepository } from '../../../lib/project/detect-git.js';
import { createInitialCommit } from '../../../lib/project/initial-commit.js';
import * as jobGit from '../../../lib/fleet/job-git.js';
import { jobNumberOf } from '../../../lib/fleet/job-outcome.js';
import { GitRepositoryChanged, recordGitBaseline, resetGitBaselines } from '../../../lib/platform/git-gateway.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { copyProject, GIT_TEST_ENV, removeWhenTheFileEnds, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

// Each scene's user has a home of its own (set by startRun), so its global configuration can be planted.
let env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV };
const runner = nodeProcessRunner;
const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const each of cleanup.splice(0)) each();
  resetGitBaselines();
});

interface Scene {
  project: TmpProject;
  dir: string;
  marker: string;
  evil: (tag: string) => string;
  head: string;
}

/** What every scene starts from, made once for the file: the project, pushed to its origin, on a feature branch. */
interface Template {
  project: TmpProject;
  outside: string;
  origin: string;
  head: string;
}

let template: Template | undefined;

function sceneTemplate(): Template {
  if (template !== undefined && existsSync(template.project.dir)) return template;
  const project = tmpProject({ 'a.txt': 'a\n', 'b.md': 'b\n', 'c.js': 'c\n', '.ralph/fix_plan.md': '- [ ] x\n' }, { git: true });
  const outside = mkdtempSync(join(tmpdir(), 'ralph-git-sites-'));
  removeWhenTheFileEnds(outside);
  const origin = join(outside, 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  project.git('remote', 'add', 'origin', origin);
  project.git('push', '-q', 'origin', 'main');
  project.git('checkout', '-q', '-b', 'feature');
  template = { project, outside, origin, head: project.git('rev-parse', 'HEAD').trim() };
  return template;
}

/** A project with an origin, as the run finds it: the baseline recorded before anything is planted. */
async function startRun(): Promise<Scene> {
  const made = sceneTemplate();
  const project = copyProject(made.project);
  const outside = mkdtempSync(join(tmpdir(), 'ralph-git-sites-'));
  cleanup.push(
    () => project.cleanup(),
    () => rmSync(outside, { recursive: true, force: true }),
  );
  const origin = join(outside, 'origin.git');
  cpSync(made.origin, origin, { recursive: true, preserveTimestamps: true });
  const config = project.path('.git/config');
  writeFileSync(config, readFileSync(config, 'utf8').replaceAll(made.origin, origin));
  const home = join(outside, 'home');
  mkdirSync(join(home, '.config', 'git'), { recursive: true });
  env = { ...process.env, ...GIT_TEST_ENV, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const marker = join(outside, 'ran.log');
  const script = join(outside, 'evil.sh');
  writeFileSync(script, `#!/bin/sh\n[ -n "$AGENT_OWN_GIT" ] || echo "$1" >> '${marker}'\nexec cat\n`);
  chmodSync(script, 0o755);
  await recordGitBaseline(project.dir, env);
  return { project, dir: project.dir, marker, evil: (tag) => `${script} ${tag}`, head: made.head };
}

/**
 * Settings added to a git config file as `git config --file <file> [--add] <key> <value>` adds
 * them (a section of their own after what the file holds), written at once instead of a git per key.
 */
function addToConfig(file: string, entries: Array<[key: string, value: string]>): void {
  const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
  const lines = entries.map(([key, value]) => {
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    const section = first === last ? key.slice(0, first) : `${key.slice(0, first)} ${quote(key.slice(first + 1, last))}`;
    return `[${section}]\n\t${key.slice(last + 1)} = ${quote(value)}\n`;
  });
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, lines.join(''));
}

/** What the agent's own git does is its business: the marker only counts ralph's calls. */
const agentGit = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...env, AGENT_OWN_GIT: '1' }, stdio: 'ignore' });

function nestedRepository(s: Scene, path: string, commit: boolean): void {
  const dir = s.project.path(path);
  mkdirSync(dir, { recursive: true });
  agentGit(dir, 'init', '-q');
  addToConfig(join(dir, '.git', 'config'), [
    ['filter.x.clean', s.evil(`${path}:clean`)],
    ['core.fsmonitor', s.evil(`${path}:fsmonitor`)],
  ]);
  writeFileSync(join(dir, '.gitattributes'), '* filter=x\n');
  writeFileSync(join(dir, 'f.txt'), 'one\n');
  agentGit(dir, 'add', '-A');
  agentGit(dir, '-c', 'maintenance.auto=false', 'commit', '-q', '-m', 'nested');
  writeFileSync(join(dir, 'f.txt'), 'two\n');
  if (commit) {
    agentGit(s.dir, 'add', path);
    agentGit(s.dir, '-c', 'maintenance.auto=false', 'commit', '-q', '-m', `add ${path}`);
  }
}

/** Settings in every place git reads them, hooks, and two nested repositories. */
function plantEverywhere(s: Scene): void {
  nestedRepository(s, 'vendor/lib', true);
  nestedRepository(s, 'extra/repo', false);
  const config = s.project.path('.git/config');
  const initial = readFileSync(config, 'utf8');
  writeFileSync(config, initial.replace(/^\trepositoryformatversion = 0$/m, '\trepositoryformatversion = 1'));
  addToConfig(config, [
    ['extensions.worktreeConfig', 'true'],
    ['core.fsmonitor', s.evil('config:fsmonitor')],
    ['filter.z.clean', s.evil('config:clean')],
    ['filter.z.smudge', s.evil('config:smudge')],
    ['diff.z.textconv', s.evil('config:textconv')],
    ['diff.external', s.evil('config:external')],
    ['merge.z.driver', s.evil('config:merge')],
    ['include.path', '../.ralph/inc.cfg'],
  ]);
  expect(readFileSync(config, 'utf8')).toContain('repositoryformatversion = 1');
  addToConfig(s.project.path('.ralph/inc.cfg'), [
    ['filter.inc.clean', s.evil('include:clean')],
    ['core.sshCommand', s.evil('include:ssh')],
  ]);
  addToConfig(s.project.path('.git/config.worktree'), [
    ['filter.wt.clean', s.evil('worktree:clean')],
    ['core.fsmonitor', s.evil('worktree:fsmonitor')],
  ]);
  mkdirSync(s.project.path('.git/info'), { recursive: true });
  writeFileSync(s.project.path('.git/info/attributes'), '*.txt filter=z diff=z merge=z\n');
  writeFileSync(s.project.path('.gitattributes'), '*.md filter=inc diff=z\n*.js filter=wt\n');
  for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push', 'reference-transaction', 'post-checkout', 'post-index-change']) {
    writeFileSync(s.project.path(`.git/hooks/${hook}`), `#!/bin/sh\n${s.evil(`hook:${hook}`)} </dev/null\n`);
    chmodSync(s.project.path(`.git/hooks/${hook}`), 0o755);
  }
  writeFileSync(s.project.path('a.txt'), 'changed\n');
  writeFileSync(s.project.path('b.md'), 'changed\n');
  writeFileSync(s.project.path('c.js'), 'changed\n');
  writeFileSync(s.project.path('new.txt'), 'new\n');
}

/** `.git/commondir` sends git to the agent's copy of the config. */
function swapCommonDir(s: Scene): void {
  const g = s.project.path('.ralph/g');
  mkdirSync(g, { recursive: true });
  writeFileSync(join(g, 'config'), readFileSync(s.project.path('.git/config')));
  writeFileSync(join(g, 'HEAD'), readFileSync(s.project.path('.git/HEAD')));
  symlinkSync('../../.git/objects', join(g, 'objects'));
  symlinkSync('../../.git/refs', join(g, 'refs'));
  const trap = join(s.marker, '..', 'trap.git');
  execFileSync('git', ['init', '-q', '--bare', trap]);
  writeFileSync(join(trap, 'hooks', 'pre-receive'), `#!/bin/sh\n${s.evil('trap:pre-receive')} </dev/null\n`);
  chmodSync(join(trap, 'hooks', 'pre-receive'), 0o755);
  const config = join(g, 'config');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(/^\turl = .*$/m, () => `\turl = ${trap}`),
  );
  expect(readFileSync(config, 'utf8')).toContain(`url = ${trap}\n`);
  addToConfig(config, [
    ['core.fsmonitor', s.evil('commondir:fsmonitor')],
    ['filter.z.clean', s.evil('commondir:clean')],
  ]);
  writeFileSync(s.project.path('.gitattributes'), '* filter=z\n');
  writeFileSync(s.project.path('a.txt'), 'changed\n');
  writeFileSync(s.project.path('.git/commondir'), '../.ralph/g\n');
}

/** The same settings in the user's global configuration files, and a push redirected to a trap. */
function plantUserConfig(s: Scene): string {
  const home = env.HOME!;
  const global = join(home, '.gitconfig');
  const xdg = join(home, '.config', 'git', 'config');
  addToConfig(global, [
    ['core.fsmonitor', s.evil('global:fsmonitor')],
    ['core.hooksPath', join(home, 'hooks')],
    ['core.sshCommand', s.evil('global:ssh')],
    ['core.pager', s.evil('global:pager')],
    ['credential.helper', `!${s.evil('global:credential')}`],
    ['filter.g.clean', s.evil('global:clean')],
    ['diff.g.textconv', s.evil('global:textconv')],
    ['include.path', join(home, 'more.cfg')],
  ]);
  addToConfig(join(home, 'more.cfg'), [['filter.i.clean', s.evil('include:clean')]]);
  addToConfig(xdg, [
    ['filter.x.clean', s.evil('xdg:clean')],
    ['core.fsmonitor', s.evil('xdg:fsmonitor')],
  ]);
  writeFileSync(join(home, '.config', 'git', 'attributes'), '*.txt filter=g diff=g\n*.md filter=x\n*.js filter=i\n');
  mkdirSync(join(home, 'hooks'));
  for (const hook of ['pre-commit', 'post-commit', 'pre-push', 'reference-transaction', 'post-index-change']) {
    writeFileSync(join(home, 'hooks', hook), `#!/bin/sh\n${s.evil(`global-hook:${hook}`)} </dev/null\n`);
    chmodSync(join(home, 'hooks', hook), 0o755);
  }
  const trap = join(s.marker, '..', 'trap.git');
  execFileSync('git', ['init', '-q', '--bare', trap]);
  const origin = s.project.git('remote', 'get-url', 'origin').trim();
  for (const file of [global, xdg])
    for (const from of [origin, 'ralph-recorded-remote:']) {
      addToConfig(file, [
        [`url.${trap}.insteadOf`, from],
        [`url.${trap}.pushInsteadOf`, from],
      ]);
    }
  for (const name of ['a.txt', 'b.md', 'c.js']) writeFileSync(s.project.path(name), 'changed\n');
  writeFileSync(s.project.path('new.txt'), 'new\n');
  return trap;
}

type Operation = (s: Scene) => Promise<unknown>;

const lifecycleCtx = (s: Scene) => ({ processRunner: runner, cwd: s.dir, env });
const queueGit = (s: Scene) => ({ runner, cwd: s.dir, env });
const parallelGit = () => ({ runner, env });

// Each exported operation that runs git, as its callers call it.
const OPERATIONS: Record<string, Operation> = {
  'lifecycle readHeadSha': (s) => lifecycle.readHeadSha(lifecycleCtx(s)),
  'lifecycle listChangedFiles': (s) => lifecycle.listChangedFiles(s.head, lifecycleCtx(s)),
  'lifecycle readShortstat': (s) => lifecycle.readShortstat(s.head, null, lifecycleCtx(s)),
  'lifecycle readAddedLines': (s) => lifecycle.readAddedLines(s.head, null, lifecycleCtx(s)),
  'lifecycle writeContentTree': (s) => lifecycle.writeContentTree(lifecycleCtx(s)),
  'lifecycle readCurrentBranch': (s) => lifecycle.readCurrentBranch(lifecycleCtx(s)),
  'lifecycle readOriginDefaultBranch': (s) => lifecycle.readOriginDefaultBranch(lifecycleCtx(s)),
  'lifecycle pushBranch': (s) => lifecycle.pushBranch('feature', lifecycleCtx(s)),
  'queue readHead': (s) => readHead(queueGit(s)),
  'queue commitLeftovers': (s) => commitLeftovers(queueGit(s), s.head, 'leftovers\n'),
  'parallel commitUnitLeftovers': (s) => commitUnitLeftovers(parallelGit(), s.dir, 'unit leftovers\n'),
  'parallel listConflictedFiles': (s) => listConflictedFiles(parallelGit(), s.dir),
  'parallel readRunBranch': (s) => readRunBranch(parallelGit(), s.dir),
  'parallel status': (s) => readGit(parallelGit(), s.dir, ['status', '--porcelain']),
  'backup createBackup': (s) => createBackup({ projectDir: s.dir, processRunner: runner, env, loop: 1, keep: 3, ledger: s.project.path('.ledger.json') }),
  'backup listBackups': (s) => listBackups({ projectDir: s.dir, processRunner: runner, env, ledger: s.project.path('.ledger.json') }),
  'rollback --rollback listing': (s) => runRollback({ projectDir: s.dir, force: false, json: true, write: () => undefined, processRunner: runner, env }),
  'content snapshot': async (s) => {
    const snapshotter = createContentSnapshotter({
      projectDir: s.dir,
      stateDir: s.project.path('.ralph'),
      excluded: [],
      processRunner: runner,
      env,
      gitStatFrom: 1,
    });
    const first = await snapshotter.take();
    writeFileSync(s.project.path('a.txt'), 'again\n');
    return snapshotter.changedPaths(first, await snapshotter.take());
  },
  'project isGitRepository': (s) => isGitRepository(s.dir, { runner, env }),
  'project detectGitInfo': (s) => detectGitInfo(s.dir, { runner, env }),
  'project createInitialCommit': (s) => createInitialCommit({ projectDir: s.dir, files: ['a.txt', 'b.md', 'c.js', 'new.txt'], runner, env }),
  'fleet setBotIdentity': (s) => jobGit.setBotIdentity(queueGit(s)),
  'fleet remoteHasBranch': (s) => jobGit.remoteHasBranch(queueGit(s), 'main'),
  'fleet commitWork': async (s) =>
    jobGit.commitWork(queueGit(s), 'work\n', {
      since: s.head,
      branch: 'feature',
      heldTree: await jobGit.readHeldTree(queueGit(s), s.head),
      ownEntries: await jobGit.readOwnEntries(queueGit(s)),
    }),
  'fleet pushHead': (s) => jobGit.pushHead(queueGit(s), 'feature'),
  'fleet pushStateBranch': (s) => jobGit.pushStateBranch(queueGit(s), s.project.path('.ralph'), 'ralph-state/1', 'state\n'),
  'fleet jobNumberOf': (s) => jobNumberOf(queueGit(s), 'ralph-state/1'),
  'containment disarm': async (s) => {
    const ctx = { projectDir: s.dir, env, processRunner: runner };
    return disarmNestedRepositories(ctx, await recordNestedRepositories(ctx), '.ralph/quarantine/t');
  },
};

function ran(s: Scene): string[] {
  return existsSync(s.marker) ? readFileSync(s.marker, 'utf8').split('\n').filter(Boolean) : [];
}

describe('every git operation of ralph and ralph-fleet', () => {
  for (const [name, operation] of Object.entries(OPERATIONS)) {
    it(`${name}: runs nothing planted in any config, attributes, hook or nested repository`, async () => {
      const s = await startRun();
      plantEverywhere(s);
      const outcome = await operation(s).catch((error: unknown) => error);
      expect(outcome).not.toBeInstanceOf(GitRepositoryChanged);
      expect(ran(s)).toEqual([]);
      // The plants are live: the user's own git, with no ralph in between, runs them.
      if (name === 'lifecycle readHeadSha') {
        execFileSync('git', ['status', '--porcelain'], { cwd: s.dir, env, stdio: 'ignore' });
        expect(ran(s).length).toBeGreaterThan(0);
      }
    });

    it(`${name}: runs nothing planted in the user's global configuration, and pushes nowhere it names`, async () => {
      const s = await startRun();
      const trap = plantUserConfig(s);
      await operation(s).catch((error: unknown) => error);
      expect(ran(s)).toEqual([]);
      expect(execFileSync('git', ['--git-dir', trap, 'for-each-ref'], { encoding: 'utf8' })).toBe('');
      if (name === 'lifecycle readHeadSha') {
        execFileSync('git', ['add', '-A'], { cwd: s.dir, env, stdio: 'ignore' });
        expect(ran(s).length).toBeGreaterThan(0);
      }
    });

    it(`${name}: keeps to the repository it started with when .git/commondir is swapped`, async () => {
      const s = await startRun();
      swapCommonDir(s);
      await operation(s).catch((error: unknown) => error);
      expect(ran(s)).toEqual([]);
    });
  }
});
