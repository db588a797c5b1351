// ralph's own git calls run no repository code: a hostile agent plants every git setting and
// hook that names a program — core.fsmonitor, clean/smudge/process filters (by
// .git/info/attributes and .gitattributes), textconv, diff.external, a hooks path and every hook
// ralph's commands could fire — in the repository's config and in the user's global config
// (which no guarded-file check covers), and the real `bin/ralph` (content snapshots, --backup)
// and `ralph-queue process` (the leftover commit) go on without running any of them. The plants
// are proven live afterwards: a plain `git add`/`git commit` runs them (those in .git/ itself are
// also undone after each call as guarded files; the global ones and .gitattributes are not).

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';
import { useCleanups } from '../../helpers/cleanups.js';

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'pre-merge-commit',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
  'post-rewrite',
  'pre-push',
  'pre-rebase',
];

const cleanups = useCleanups();

interface Attack {
  dir: string;
  ranLog: string;
  plant: string;
}

/** The evil program (it logs what ran it, then passes its input on) and the script that plants it. */
function prepareAttack(): Attack {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-git-attack-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ranLog = join(dir, 'ran.log');
  const evil = join(dir, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\necho "$1" >> '${ranLog}'\nexec cat\n`);
  chmodSync(evil, 0o755);
  const hooks = HOOKS.map((h) => `printf '#!/bin/sh\\n%s %s </dev/null\\n' '${evil}' ${h} > "$d/${h}"; chmod +x "$d/${h}"`).join('\n  ');
  const plant = join(dir, 'plant.sh');
  writeFileSync(
    plant,
    `set -e
for scope in --local --global; do
  git config $scope core.fsmonitor "${evil} fsmonitor"
  git config $scope filter.evil.clean "${evil} clean"
  git config $scope filter.evil.smudge "${evil} smudge"
  git config $scope filter.evilp.process "${evil} process"
  git config $scope diff.evil.textconv "${evil} textconv"
  git config $scope diff.external "${evil} external"
done
git config --global core.hooksPath "$PWD/.husky"
mkdir -p .git/info .husky
echo '*.txt filter=evil diff=evil' > .git/info/attributes
printf '*.md filter=evilp diff=evil\\n*.js filter=evil\\n' > .gitattributes
for d in .git/hooks .husky; do
  ${hooks}
done
`,
  );
  return { dir, ranLog, plant };
}

const ALLOW_SH = 'ALLOWED_TOOLS="Write,Read,Edit,Bash(sh *)"\n';
const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };
function planting(attack: Attack): FakeCallScript {
  return {
    steps: [{ tool: 'Bash', input: { command: `sh ${attack.plant}` }, exec: true }],
    writeFiles: { 'notes.txt': 'planted\n', 'app.js': 'one\n' },
    statusBlock: working,
  };
}

function ranPrograms(attack: Attack): string[] {
  return existsSync(attack.ranLog) ? readFileSync(attack.ranLog, 'utf8').split('\n').filter(Boolean) : [];
}

/** A plain git add and commit in the project with the agent's environment: the plants are live. */
function expectPlantsLive(project: TmpProject, env: Record<string, string>, attack: Attack): void {
  writeFileSync(project.path('proof.js'), 'proof\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project.dir, env, stdio: 'ignore' });
  git('add', '-A');
  git('commit', '-q', '-m', 'proof');
  expect(ranPrograms(attack)).toEqual(expect.arrayContaining(['fsmonitor', 'clean', 'pre-commit', 'commit-msg', 'post-commit']));
}

describe('a hostile agent plants git settings and hooks', () => {
  it('ralph (content snapshots and --backup) runs none of them in the loops after', async () => {
    const attack = prepareAttack();
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}`, 'README.md': '# r\n', 'src/a.txt': 'a\n' }), { git: true });
    cleanups.push(() => project.cleanup());
    const fake: FakeClaude = withFakeClaude({
      calls: [
        planting(attack),
        { writeFiles: { 'notes.txt': 'two\n', 'app.js': 'two\n', 'README.md': '# two\n' }, statusBlock: working },
        { writeFiles: { 'notes.txt': 'three\n', 'README.md': '# three\n' }, statusBlock: working },
      ],
    });
    cleanups.push(() => fake.cleanup());
    const env = { ...fake.env, ...GIT_TEST_ENV };
    const run = await runCli('ralph', ['--backup', '--max-loops', '3'], { cwd: project.dir, env });
    expect(fake.runs()).toHaveLength(3);
    expect(run.stderr).toMatch(/Backup|backup/);
    expect(ranPrograms(attack)).toEqual([]);
    expectPlantsLive(project, env, attack);
  }, 120_000);

  it('ralph-queue process commits the leftovers without running any of them', async () => {
    const attack = prepareAttack();
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${ALLOW_SH}TEST_COMMAND="echo ok"\n` }), { git: true });
    cleanups.push(() => project.cleanup());
    const fake = withFakeClaude({ calls: [{ ...planting(attack), tickFixPlan: 'all', statusBlock: undefined, resultText: 'Did the task.' }] });
    cleanups.push(() => fake.cleanup());
    const clis: FakeTaskClis = withFakeTaskClis({ gh: { issues: [{ number: 7, title: 'Seven', labels: [{ name: 'P1' }], body: 'Do it.' }] } });
    cleanups.push(() => clis.cleanup());
    const fakeGh = Object.fromEntries(Object.entries(clis.env).filter(([key]) => key.startsWith('FAKE_GH')));
    const env = { ...fake.env, ...GIT_TEST_ENV, ...fakeGh, PATH: [clis.binDir, fake.env.PATH].join(delimiter) };
    expect((await runCli('ralph-queue', ['add', '7'], { cwd: project.dir, env })).code).toBe(0);
    const run = await runCli('ralph-queue', ['process'], { cwd: project.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(
      execFileSync('git', ['log', '-1', '--format=%s'], {
        cwd: project.dir,
        env: { ...env, GIT_CONFIG_PARAMETERS: "'core.hooksPath=/dev/null' 'core.fsmonitor=false'" },
        encoding: 'utf8',
      }).trim(),
    ).toBe('Fix #7: Seven');
    expect(ranPrograms(attack)).toEqual([]);
    expectPlantsLive(project, env, attack);
  }, 120_000);
});
