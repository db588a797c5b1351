// The attacks on ralph's git, each by a fake agent that does what a prompt-injected one would,
// through ralph's loop (in the test's process, tests/helpers/ralph-in-process.ts) and the real
// ralph-queue:
// - a nested repository of the agent's, with a clean filter and an fsmonitor in its own
//   .git/config: none of ralph's git calls enter it (content snapshots, --backup, the queue's
//   leftover commit), it is not added to ralph's commits, and the user's own `git status` after
//   the run runs nothing either (the loop disarmed it, and said so);
// - `.git/commondir` pointing at a copy of the config the agent controls, with an fsmonitor and
//   origin's URL set to a local repository whose pre-receive hook runs: ralph's git keeps to the
//   repository it started with, the push reaches the real origin and runs no hook;
// - `.git` renamed and a gitfile planted in its place, with package.json's test script changed:
//   ralph moves the repository back and undoes the script (or, when the repository is nowhere to
//   be found, halts with exit 2 naming `.git`), never "internal error".

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const ALLOW_SH = 'ALLOWED_TOOLS="Write,Read,Edit,Bash(sh *)"\n';
const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };

interface Evil {
  dir: string;
  /** A program that logs its first argument (unless the agent's own script ran it), then passes its input on. */
  program: (tag: string) => string;
  ran: () => string[];
  /** A script file for the agent to run (`sh <file>`). */
  script: (name: string, body: string) => string;
}

function prepareEvil(): Evil {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-git-attack-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'ran.log');
  const evil = join(dir, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\n[ -n "$AGENT_OWN_GIT" ] || echo "$1" >> '${log}'\nexec cat\n`);
  chmodSync(evil, 0o755);
  return {
    dir,
    program: (tag) => `${evil} ${tag}`,
    ran: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    script: (name, body) => {
      const file = join(dir, name);
      // What the agent's own git runs is the agent's business: only ralph's and the user's count.
      writeFileSync(file, `set -e\nexport AGENT_OWN_GIT=1\n${body}\n`);
      return file;
    },
  };
}

const shStep = (file: string): FakeCallScript['steps'] => [{ tool: 'Bash', input: { command: `sh ${file}` }, exec: true }];

/** The user's own git in the project after the run (no overrides of ralph's). */
function userGit(project: TmpProject, ...args: string[]): string {
  return execFileSync('git', args, { cwd: project.dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function nestedRepository(evil: Evil): string {
  return evil.script(
    'nested.sh',
    `
mkdir -p vendor/lib
cd vendor/lib
git init -q
git config filter.x.clean "${evil.program('nested-clean')}"
git config core.fsmonitor "${evil.program('nested-fsmonitor')}"
echo '* filter=x' > .gitattributes
echo one > f.txt
git add -A
git commit -q -m nested
echo two >> f.txt
cd ../..
git add vendor/lib
git commit -q -m 'vendor the library'
echo 'work' > work.txt`,
  );
}

describe('a nested repository of the agent', () => {
  it("ralph --backup never enters it; after the run the user's git status runs nothing, and ralph said what it disarmed", async () => {
    const evil = prepareEvil();
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}`, 'README.md': '# r\n' }), { git: true });
    cleanups.push(() => project.cleanup());
    const touch = evil.script('touch.sh', 'touch vendor/lib/f.txt vendor/lib/.gitattributes\necho more >> work.txt');
    const fake = withFakeClaude({
      calls: [
        { steps: shStep(nestedRepository(evil)), statusBlock: working },
        { steps: shStep(touch), statusBlock: working },
        { steps: shStep(touch), statusBlock: working },
      ],
    });
    cleanups.push(() => fake.cleanup());
    const run = await runRalphInProcess(project.dir, ['--backup', '--max-loops', '3'], { ...fake.env, ...GIT_TEST_ENV });
    expect(fake.runs()).toHaveLength(3);
    expect(run.stderr).not.toContain('internal error');
    expect(evil.ran()).toEqual([]);
    expect(run.stdout + run.stderr).toMatch(/Disarmed git settings in vendor\/lib .*core\.fsmonitor.*filter\.x\.clean/);
    userGit(project, 'status', '--porcelain');
    userGit(project, 'diff', 'HEAD');
    expect(evil.ran()).toEqual([]);
  }, 120_000);

  it('ralph-queue process commits the leftovers without entering or adding it', async () => {
    const evil = prepareEvil();
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}TEST_COMMAND="echo ok"\n` }), { git: true });
    cleanups.push(() => project.cleanup());
    const plant = evil.script(
      'plant.sh',
      `
mkdir -p third/party
cd third/party
git init -q
git config filter.x.clean "${evil.program('nested-clean')}"
git config core.fsmonitor "${evil.program('nested-fsmonitor')}"
echo '* filter=x' > .gitattributes
echo one > f.txt
git add -A
git commit -q -m nested
touch f.txt
cd ../..
echo done > result.txt`,
    );
    const fake = withFakeClaude({ calls: [{ steps: shStep(plant), tickFixPlan: 'all', resultText: 'Did the task.' }] });
    cleanups.push(() => fake.cleanup());
    const clis = withFakeTaskClis({ gh: { issues: [{ number: 7, title: 'Seven', labels: [{ name: 'P1' }], body: 'Do it.' }] } });
    cleanups.push(() => clis.cleanup());
    const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
    const env = { ...fake.env, ...GIT_TEST_ENV, ...fakeGh, PATH: [clis.binDir, fake.env.PATH].join(delimiter) };
    expect((await runCli('ralph-queue', ['add', '7'], { cwd: project.dir, env })).code).toBe(0);
    const run = await runCli('ralph-queue', ['process'], { cwd: project.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(userGit(project, 'log', '-1', '--format=%s').trim()).toBe('Fix #7: Seven');
    const committed = userGit(project, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n');
    expect(committed).toContain('result.txt');
    expect(committed.filter((path) => path.startsWith('third'))).toEqual([]);
    expect(evil.ran()).toEqual([]);
  }, 120_000);
});

describe(".git/commondir pointing at the agent's copy of the config", () => {
  it("the push goes to the origin the run started with and runs no receive hook; the user's git status runs nothing after", async () => {
    const evil = prepareEvil();
    const project = tmpProject(
      ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '# Plan\n- [ ] one\n' }),
      { git: true },
    );
    cleanups.push(() => project.cleanup());
    const origin = join(evil.dir, 'origin.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    project.git('remote', 'add', 'origin', origin);
    project.git('push', '-q', 'origin', 'main');
    project.git('checkout', '-q', '-b', 'ralph/issue-42');
    const trap = join(evil.dir, 'trap.git');
    execFileSync('git', ['init', '-q', '--bare', trap]);
    writeFileSync(join(trap, 'hooks', 'pre-receive'), `#!/bin/sh\n${evil.program('pre-receive')} </dev/null\nexit 1\n`);
    chmodSync(join(trap, 'hooks', 'pre-receive'), 0o755);
    const swap = evil.script(
      'swap.sh',
      `
mkdir -p .ralph/g
cp .git/config .ralph/g/config
cp .git/HEAD .ralph/g/HEAD
ln -s ../../.git/objects .ralph/g/objects
ln -s ../../.git/refs .ralph/g/refs
git config -f .ralph/g/config remote.origin.url "${trap}"
git config -f .ralph/g/config core.fsmonitor "${evil.program('fsmonitor')}"
echo ../.ralph/g > .git/commondir
echo one > one.txt
git add one.txt
git commit -q -m one`,
    );
    const fake = withFakeClaude({ calls: [{ steps: shStep(swap), tickFixPlan: 'all', resultText: 'Did it.' }] });
    cleanups.push(() => fake.cleanup());
    const clis = withFakeTaskClis({ gh: { issues: [{ number: 42, title: 'Add the widget' }], prUrl: 'https://github.com/fake/repo/pull/7' } });
    cleanups.push(() => clis.cleanup());
    const env = {
      ...fake.env,
      ...GIT_TEST_ENV,
      FAKE_GH_DATA: clis.env.FAKE_GH_DATA!,
      FAKE_GH_LOG: clis.env.FAKE_GH_LOG!,
      PATH: [clis.binDir, fake.env.PATH].join(delimiter),
    };
    const run = await runRalphInProcess(project.dir, ['--github-issue', '42', '--create-pr', '--max-loops', '2'], env);
    expect(run.stderr).not.toContain('internal error');
    expect(evil.ran()).toEqual([]);
    expect(execFileSync('git', ['--git-dir', origin, 'branch', '--list', 'ralph/issue-42'], { encoding: 'utf8' })).toContain('ralph/issue-42');
    expect(userGit(project, 'rev-parse', '--abbrev-ref', 'ralph/issue-42@{upstream}').trim()).toBe('origin/ralph/issue-42');
    expect(existsSync(project.path('.git/commondir'))).toBe(false);
    userGit(project, 'status', '--porcelain');
    expect(evil.ran()).toEqual([]);
  }, 120_000);
});

describe('.git renamed, a gitfile in its place', () => {
  const setUp = (move: string) => {
    const evil = prepareEvil();
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}`, 'package.json': '{"scripts":{"test":"vitest run"}}\n' }), {
      git: true,
    });
    cleanups.push(() => project.cleanup());
    const plant = evil.script(
      'rename.sh',
      `${move}
node -e 'const f="package.json";const p=JSON.parse(require("fs").readFileSync(f));p.scripts.test="exit 0";require("fs").writeFileSync(f,JSON.stringify(p))'`,
    );
    const fake = withFakeClaude({ calls: [{ steps: shStep(plant), statusBlock: working }, { statusBlock: working }] });
    cleanups.push(() => fake.cleanup());
    return { project, fake, run: () => runRalphInProcess(project.dir, ['--max-loops', '2'], { ...fake.env, ...GIT_TEST_ENV }) };
  };

  it('ralph moves the repository back, keeps the gitfile aside and undoes the test script', async () => {
    const { project, run } = setUp('mv .git .git-moved\necho "gitdir: .git-moved" > .git');
    const result = await run();
    expect(result.stderr).not.toContain('internal error');
    expect(lstatSync(project.path('.git')).isDirectory()).toBe(true);
    expect(existsSync(project.path('.git-moved'))).toBe(false);
    expect(JSON.parse(readFileSync(project.path('package.json'), 'utf8')).scripts.test).toBe('vitest run');
    expect(result.stderr).toMatch(/changed \.git\b/);
    expect(userGit(project, 'rev-parse', '--absolute-git-dir').trim()).toBe(join(project.dir, '.git'));
  }, 120_000);

  it('halts with exit 2 naming .git when the repository is nowhere ralph can find it, the test script undone', async () => {
    const { project, run } = setUp('mkdir -p deep/er\nmv .git deep/er/kept\necho "gitdir: elsewhere" > .git');
    const result = await run();
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(/could not put back \.git: .*move your repository back to \.git/);
    expect(JSON.parse(readFileSync(project.path('package.json'), 'utf8')).scripts.test).toBe('vitest run');
  }, 120_000);
});
