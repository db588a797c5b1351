// ralph's own files of a parallel run stay out of git: the generated .gitignore lists them,
// --doctor checks them, and the units' worktrees are excluded in the repository itself, so
// `git add -A` never embeds them as repositories whatever the project's .gitignore says.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
let plain: TmpProject | undefined;
afterEach(() => {
  p?.cleanup();
  plain?.cleanup();
});

const PARALLEL_FILES = ['.ralph/parallel.json', '.ralph/queue-parallel.json', '.ralph/worktrees/p1-unit/.git', '.ralph/fleet/12/run.json'];

function ignored(project: TmpProject, files: string[]): string[] {
  try {
    return execFileSync('git', ['check-ignore', '--', ...files], { cwd: project.dir, encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

describe("a parallel run's files and git", () => {
  it("ralph-enable writes a .gitignore that ignores the parallel run's files and the fleet's downloads", async () => {
    plain = tmpProject({}, { git: true, commit: false });
    const enabled = await runCli('ralph-enable-ci', ['--from', 'none'], { cwd: plain.dir });
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(ignored(plain, PARALLEL_FILES)).toEqual(PARALLEL_FILES);
  });

  it('--doctor warns when .gitignore would show them, and its fix makes the check pass', async () => {
    p = parallelProject(
      ['Add alpha'],
      { calls: [] },
      { files: { '.gitignore': '.ralph/.*\n.ralph/logs/\n.ralph/status.json\n.ralph/progress.json\n.ralph/live.log\n.ralph/sessions/\n' } },
    );
    const doctor = await runCli('ralph', ['--doctor'], { cwd: p.project.dir, env: p.env });
    const line = doctor.stdout.split('\n').find((l) => l.includes('.gitignore:'))!;
    expect(line).toContain(
      "[WARN] .gitignore: git would show ralph's state (.ralph/parallel.json, .ralph/queue-parallel.json, .ralph/worktrees/unit, .ralph/fleet/1)",
    );
    execFileSync('sh', ['-c', line.split(' — fix: ')[1]!], { cwd: p.project.dir });
    const again = await runCli('ralph', ['--doctor'], { cwd: p.project.dir, env: p.env });
    expect(again.stdout).toContain("[OK]   .gitignore: ralph's state files are ignored");
  });

  it(
    "keeps a unit's worktree out of `git status` and `git add -A` in a project whose .gitignore does not name it",
    async () => {
      const stuck = {
        match: { promptRegex: 'one item of the plan: Add beta' },
        resultText: 'Still thinking.',
        writeFiles: { 'beta-draft.txt': 'draft\n' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      };
      p = parallelProject(
        ['Add alpha', 'Add beta'],
        { calls: [doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }), stuck] },
        { rc: 'CB_NO_PROGRESS_THRESHOLD=2\n', files: { '.gitignore': '.ralph/.*\n.ralph/logs/\n.ralph/parallel.json\n' } },
      );
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(2);
      expect(p.worktrees()).toHaveLength(1);
      expect(p.project.git('status', '--porcelain')).not.toContain('.ralph/worktrees');
      const git = (...args: string[]) => execFileSync('git', args, { cwd: p!.project.dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
      git('add', '-A');
      expect(git('ls-files', '-s')).not.toMatch(/^160000 /m);
      expect(readFileSync(p.project.path('.git/info/exclude'), 'utf8')).toContain('\n/.ralph/worktrees/\n');
      // Taken up again, the exclude is not written twice.
      git('reset', '-q');
      const again = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(again.code, again.stderr).toBe(2);
      expect(readFileSync(p.project.path('.git/info/exclude'), 'utf8').match(/\/\.ralph\/worktrees\//g)).toHaveLength(1);
    },
    LONG,
  );
});
