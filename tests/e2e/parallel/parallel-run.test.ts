// `ralph --parallel N` end to end with the real bin/ralph, real git and the fake `claude`:
// units merged and ticked, conflicts resolved by the agent or left for review, halted units
// kept, dirty trees refused, and a project whose agent commits .ralph/ too.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

describe('ralph --parallel', () => {
  it(
    'runs three items side by side, merges and ticks each, and leaves no worktree or unit branch',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
        calls: [
          doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }),
          doesItem('Add beta', { 'beta.txt': 'beta\n' }),
          doesItem('Add gamma', { 'gamma.txt': 'gamma\n' }),
        ],
      });
      const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(0);
      expect(p.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
      expect(p.project.git('show', 'HEAD:beta.txt')).toBe('beta\n');
      expect(p.project.git('show', 'HEAD:gamma.txt')).toBe('gamma\n');
      expect(p.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
      // The plan is tracked here: each tick is committed, so the run branch is clean.
      expect(p.project.git('status', '--porcelain', '--untracked-files=no')).toBe('');
      expect(p.worktrees()).toEqual([]);
      expect(p.branches()).toEqual(['main']);
      expect(p.state().units.map((u) => u.state)).toEqual(['merged', 'merged', 'merged']);
      // Each agent ran in its own worktree, at the same time as the others.
      const cwds = p.claude.runs().map((c) => c.cwd);
      expect(new Set(cwds).size).toBe(3);
      expect(run.stdout).toContain('add-alpha: merged');
    },
    LONG,
  );
});

describe('ralph --parallel: conflicts', () => {
  const resolves = {
    match: { promptRegex: 'Resolve the merge conflicts in: shared\\.txt' },
    resultText: 'Resolved.',
    tickFixPlan: 'all' as const,
    writeFiles: { 'shared.txt': 'alpha and beta\n' },
  };

  it(
    "sends a conflict back to the unit's agent, whose second pass resolves it; both items merged",
    async () => {
      p = parallelProject(['Add alpha', 'Add beta'], {
        calls: [resolves, doesItem('Add alpha', { 'shared.txt': 'alpha\n' }), doesItem('Add beta', { 'shared.txt': 'beta\n' })],
      });
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(0);
      expect(p.project.git('show', 'HEAD:shared.txt')).toBe('alpha and beta\n');
      expect(p.plan()).toContain('- [x] Add alpha\n- [x] Add beta\n');
      const conflictPass = p.claude.runs().filter((c) => /Resolve the merge conflicts in: shared\.txt/.test(c.prompt ?? ''));
      expect(conflictPass).toHaveLength(1);
      expect(
        p
          .state()
          .units.map((u) => [u.state, u.conflict_passes])
          .sort(),
      ).toEqual([
        ['merged', 0],
        ['merged', 1],
      ]);
      expect(p.worktrees()).toEqual([]);
      expect(p.branches()).toEqual(['main']);
    },
    LONG,
  );

  it(
    'leaves a conflict the second pass cannot resolve for review: work on its branch, run branch clean, exit 2',
    async () => {
      const fails = { ...resolves, writeFiles: {}, resultText: 'Could not decide.' };
      p = parallelProject(['Add alpha', 'Add beta'], {
        calls: [fails, doesItem('Add alpha', { 'shared.txt': 'alpha\n' }), doesItem('Add beta', { 'shared.txt': 'beta\n' })],
      });
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(2);
      const units = p.state().units;
      const review = units.find((u) => u.state === 'needs-review')!;
      const merged = units.find((u) => u.state === 'merged')!;
      expect(review, JSON.stringify(units)).toBeDefined();
      expect(merged).toBeDefined();
      // The run branch holds the merged unit's side, no marker, and nothing uncommitted.
      expect(p.project.git('show', 'HEAD:shared.txt')).toBe(`${merged.slug === 'add-alpha' ? 'alpha' : 'beta'}\n`);
      expect(p.project.git('status', '--porcelain', '--untracked-files=no')).toBe('');
      expect(p.project.git('show', 'HEAD:shared.txt')).not.toContain('<<<<<<<');
      // The other unit's work is on its branch, its worktree kept, and the summary says how to look.
      expect(p.project.git('show', `${review.branch as string}:shared.txt`)).toBe(`${review.slug === 'add-alpha' ? 'alpha' : 'beta'}\n`);
      expect(p.worktrees()).toEqual([`${p.state().run_id as string}-${review.slug as string}`]);
      expect(run.stdout).toContain(`${review.slug as string}: needs review`);
      expect(run.stdout).toContain(`git log --oneline main..${review.branch as string}`);
      // A backup ref of both tips was taken before each merge attempt.
      const backups = p.project.git('for-each-ref', '--format=%(refname)', 'refs/ralph/backups/').trim().split('\n');
      expect(backups.some((ref) => ref.endsWith(`/${review.slug as string}/1-unit-branch`))).toBe(true);
    },
    LONG,
  );
});

describe('ralph --parallel: outcomes and start-up', () => {
  it(
    "keeps a halted unit's work on its branch and worktree while the others merge; exit 2",
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
        { rc: 'CB_NO_PROGRESS_THRESHOLD=2\n' },
      );
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(2);
      const [alpha, beta] = p.state().units;
      expect(alpha!.state).toBe('merged');
      expect(beta!.state).toBe('failed');
      expect(beta!.exit_code).toBe(2);
      expect(p.project.git('show', 'HEAD:alpha.txt')).toBe('alpha\n');
      expect(p.project.git('show', `${beta!.branch as string}:beta-draft.txt`)).toBe('draft\n');
      const runId = p.state().run_id as string;
      expect(p.worktrees()).toEqual([`${runId}-add-beta`]);
      expect(p.plan()).toContain('- [x] Add alpha\n- [ ] Add beta\n');
      // --status --json lists the units, with where the kept work is.
      const status = await runCli('ralph', ['--status', '--json', '--jq', '.parallel.units'], { cwd: p.project.dir, env: p.env });
      expect(status.code, status.stderr).toBe(0);
      const units = JSON.parse(status.stdout) as Array<Record<string, unknown>>;
      expect(units.map((u) => [u.slug, u.item, u.state, u.worktree])).toEqual([
        ['add-alpha', 'Add alpha', 'merged', `.ralph/worktrees/${runId}-add-alpha`],
        ['add-beta', 'Add beta', 'failed', `.ralph/worktrees/${runId}-add-beta`],
      ]);
      expect(units[1]!.branch).toBe(beta!.branch);
      expect(units[1]!.exit_reason).toBe('stagnation_detected');
      expect(units[1]!.loops).toBeGreaterThanOrEqual(2);
    },
    LONG,
  );

  it(
    'merges units of an agent that commits everything, .ralph/ included, with no plan conflict',
    async () => {
      const commitsAll = (item: string, file: string) => doesItem(item, { [file]: `${file}\n` }, { gitCommit: `agent: ${item}` });
      p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
        calls: [commitsAll('Add alpha', 'a.txt'), commitsAll('Add beta', 'b.txt'), commitsAll('Add gamma', 'c.txt')],
      });
      const run = await runCli('ralph', ['--parallel', '3'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(0);
      const plan = p.project.git('show', 'HEAD:.ralph/fix_plan.md');
      expect(plan).toBe('# Fix Plan\n\n## Tasks\n- [x] Add alpha\n- [x] Add beta\n- [x] Add gamma\n');
      expect(p.project.git('show', 'HEAD:.ralph/PROMPT.md')).not.toContain('Parallel unit');
      expect(p.state().units.map((u) => u.conflict_passes)).toEqual([0, 0, 0]);
      expect(p.project.git('log', '--format=%s')).toContain('agent: Add beta');
    },
    LONG,
  );

  it(
    'refuses to start when a tracked file has uncommitted changes, untracked ones untouched',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta'], { calls: [doesItem('Add alpha', { 'a.txt': 'a\n' })] }, { files: { 'README.md': 'readme\n' } });
      const { writeFileSync } = await import('node:fs');
      writeFileSync(p.project.path('README.md'), 'changed\n');
      writeFileSync(p.project.path('notes.txt'), 'mine\n');
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('tracked files have uncommitted changes: README.md');
      expect(run.stderr).toContain('commit or stash them');
      expect(p.claude.runs()).toHaveLength(0);
      expect(p.worktrees()).toEqual([]);
      expect(p.project.git('status', '--porcelain')).toBe(' M README.md\n?? notes.txt\n');
    },
    LONG,
  );

  it(
    '--dry-run prints the units and their order, and runs nothing',
    async () => {
      p = parallelProject(['Add the parser', 'Write the docs (after: add the parser)', 'Add the CLI'], { calls: [] });
      const run = await runCli('ralph', ['--parallel', '2', '--dry-run'], { cwd: p.project.dir, env: p.env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(
        [
          'Parallel run (dry run): 3 unit(s), 2 at a time',
          '  1. add-the-parser: Add the parser',
          '  2. write-the-docs: Write the docs (after: add the parser) (after add-the-parser)',
          '  3. add-the-cli: Add the CLI',
          'Order: add-the-parser, add-the-cli → write-the-docs',
          '',
        ].join('\n'),
      );
      expect(p.claude.runs()).toHaveLength(0);
      expect(p.worktrees()).toEqual([]);
    },
    LONG,
  );

  it(
    'refuses a dependency cycle before anything starts',
    async () => {
      p = parallelProject(['Alpha (after: beta)', 'Beta (after: alpha)'], { calls: [] });
      const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env: p.env });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('make a cycle: alpha → beta → alpha');
      expect(p.claude.runs()).toHaveLength(0);
    },
    LONG,
  );
});
