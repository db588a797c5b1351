// `ralph --parallel N --parallel-land pr`: each unit's branch is pushed to origin (a bare local
// repository) and its pull request opened with the fake gh (`gh api … pulls`, title and body on
// stdin, never in argv); the checked-out branch gets no commit, the plan's item is ticked
// "in review" with the pull request's URL; the URL shows in the summary and `ralph --status`.
// A push or gh failure leaves the unit's branch and says how to finish by hand, and running
// again finds the pull request instead of opening a second one.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { withFakeTaskClis, type FakeGhCall, type FakeGhData } from '../../integration/bootstrap/fake-task-clis.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface PrProject {
  p: ParallelProject;
  origin: string;
  ralph(args: string[]): Promise<CliResult>;
  gh(): FakeGhCall[];
  ghData(): Required<Pick<FakeGhData, 'pullRequests'>> & FakeGhData;
  setGhData(data: FakeGhData): void;
  onOrigin(ref: string): string | undefined;
}

const TWO_ITEMS = {
  items: ['Add alpha', 'Add beta'],
  calls: [doesItem('Add alpha', { 'alpha.txt': 'alpha\n' }), doesItem('Add beta', { 'beta.txt': 'beta\n' })],
};

/** Two independent items (or `plan`), a bare `origin` holding main, the fake gh on PATH. */
function prProject(gh: FakeGhData = {}, options: { originUrl?: string; plan?: typeof TWO_ITEMS } = {}): PrProject {
  const plan = options.plan ?? TWO_ITEMS;
  const p = parallelProject(plan.items, { calls: plan.calls });
  cleanups.push(() => p.cleanup());
  const root = mkdtempSync(join(tmpdir(), 'ralph-origin-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const origin = join(root, 'origin.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  p.project.git('remote', 'add', 'origin', origin);
  p.project.git('push', '-q', 'origin', 'main');
  if (options.originUrl) p.project.git('remote', 'set-url', 'origin', options.originUrl);
  const clis = withFakeTaskClis({ gh: { pullRequests: [], ...gh } });
  cleanups.push(() => clis.cleanup());
  const env = { ...p.env, FAKE_GH_DATA: clis.env.FAKE_GH_DATA!, FAKE_GH_LOG: clis.env.FAKE_GH_LOG!, PATH: [clis.binDir, p.env.PATH].join(delimiter) };
  return {
    p,
    origin,
    ralph: (args) => runCli('ralph', args, { cwd: p.project.dir, env }),
    gh: () => clis.ghCallsWithInput(),
    ghData: () => JSON.parse(readFileSync(clis.env.FAKE_GH_DATA!, 'utf8')),
    setGhData: (data) => writeFileSync(clis.env.FAKE_GH_DATA!, JSON.stringify(data)),
    onOrigin: (ref) => {
      try {
        return execFileSync('git', ['--git-dir', origin, 'rev-parse', '-q', '--verify', ref], { encoding: 'utf8' }).trim();
      } catch {
        return undefined;
      }
    },
  };
}

const creates = (calls: FakeGhCall[]) => calls.filter((call) => call.argv[0] === 'api');

describe('ralph --parallel --parallel-land pr', () => {
  it(
    'pushes each unit, opens one pull request each with nothing of the plan in argv, ticks the items "in review" and commits nothing on main',
    async () => {
      const s = prProject();
      const head = s.p.project.git('rev-parse', 'HEAD').trim();
      const run = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(run.code, run.stdout + run.stderr).toBe(0);

      const units = s.p.state().units;
      expect(units.map((u) => [u.slug, u.state])).toEqual([
        ['add-alpha', 'in-review'],
        ['add-beta', 'in-review'],
      ]);
      expect(s.p.state().land).toBe('pr');
      // main is as it was: no merge, no tick commit.
      expect(s.p.project.git('rev-parse', 'HEAD').trim()).toBe(head);
      for (const unit of units) {
        const branch = unit.branch as string;
        expect(s.onOrigin(`refs/heads/${branch}`)).toBe(s.p.project.git('rev-parse', `refs/heads/${branch}`).trim());
        expect(s.p.project.git('show', `refs/heads/${branch}:${branch.endsWith('alpha') ? 'alpha' : 'beta'}.txt`)).toMatch(/^(alpha|beta)\n$/);
      }
      const opened = creates(s.gh());
      expect(opened).toHaveLength(2);
      for (const call of opened) expect(call.argv).toEqual(['api', '--method', 'POST', 'repos/{owner}/{repo}/pulls', '--input', '-']);
      const requests = opened.map((call) => JSON.parse(call.stdin!) as Record<string, unknown>).sort((a, b) => String(a.title).localeCompare(String(b.title)));
      expect(requests.map((r) => [r.title, r.head, r.base, r.draft])).toEqual([
        ['Add alpha', units[0]!.branch, 'main', false],
        ['Add beta', units[1]!.branch, 'main', false],
      ]);
      expect(String(requests[0]!.body)).toContain('- [x] Add alpha');
      // No plan text in any argv.
      for (const call of s.gh()) expect(call.argv.join(' ')).not.toMatch(/Add alpha|Add beta/);

      const urls = Object.fromEntries(s.ghData().pullRequests.map((pr) => [pr.headRefName, pr.url]));
      const alphaUrl = urls[units[0]!.branch as string]!;
      const betaUrl = urls[units[1]!.branch as string]!;
      expect(units.map((u) => u.pr_url)).toEqual([alphaUrl, betaUrl]);
      expect(s.p.plan()).toContain(`- [x] Add alpha (in review: ${alphaUrl})\n- [x] Add beta (in review: ${betaUrl})\n`);
      // Left uncommitted for the user: the plan at HEAD is as the run started.
      expect(s.p.project.git('show', 'HEAD:.ralph/fix_plan.md')).toContain('- [ ] Add alpha\n- [ ] Add beta\n');
      expect(run.stdout).toContain(`  add-alpha: in review (pull request ${alphaUrl})`);
      expect(run.stdout).toContain(`    its work: branch ${units[0]!.branch as string}, pushed to origin; its item is ticked "in review" in the plan`);
      expect(run.stderr).toContain(`Unit add-alpha: pull request opened (${units[0]!.branch as string} into main): ${alphaUrl}`);
      // The worktrees are gone, the branches stay (the pull requests' heads).
      expect(s.p.worktrees()).toEqual([]);
      expect(s.p.branches()).toEqual(expect.arrayContaining([units[0]!.branch, units[1]!.branch]));

      const status = await s.ralph(['--status']);
      expect(status.stdout).toContain(`: finished, 0 of 2 unit(s) merged, 2 in review, $`);
      expect(status.stdout).toMatch(new RegExp(`add-alpha\\s+in review\\s+loops 1 · \\$\\d+\\.\\d\\d · pull request ${alphaUrl.replace(/[./]/g, '\\$&')}`));
      // The monitor's unit list (the web view reads the same snapshot).
      const frame = (await runCli('ralph-monitor', ['--once'], { cwd: s.p.project.dir, env: s.p.env })).stdout;
      expect(frame).toMatch(new RegExp(`add-alpha\\s+in-review\\s+${alphaUrl.replace(/[./]/g, '\\$&')} · loops 1 · \\$\\d+\\.\\d\\d\n`));
      const json = await s.ralph(['--status', '--json']);
      const parallel = (JSON.parse(json.stdout) as { parallel: { units: Array<Record<string, unknown>> } }).parallel;
      expect(parallel.units.map((u) => [u.state, u.pr_url])).toEqual([
        ['in-review', alphaUrl],
        ['in-review', betaUrl],
      ]);
    },
    LONG,
  );

  it(
    'a gh failure leaves the pushed branch and says how to finish; the next run finds the pull request opened by hand, opening none',
    async () => {
      const s = prProject({ failOn: { 'api pulls': 'HTTP 403: Resource not accessible by integration' } });
      const run = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(run.code, run.stdout + run.stderr).toBe(2);
      const units = s.p.state().units;
      expect(units.map((u) => u.state)).toEqual(['needs-review', 'needs-review']);
      const alpha = units[0]!;
      const branch = alpha.branch as string;
      const reason = 'its pull request could not be opened (its branch is on origin): gh api: HTTP 403: Resource not accessible by integration';
      expect(alpha.exit_reason).toBe(reason);
      expect(s.onOrigin(`refs/heads/${branch}`)).toBe(s.p.project.git('rev-parse', `refs/heads/${branch}`).trim());
      expect(run.stdout).toContain(`  add-alpha: needs review (${reason})`);
      expect(run.stdout).toContain(
        `    finish it: gh pr create --head ${branch} --base main; then ralph --parallel 2 finds the pull request, ticks the item and records its URL (or just ralph --parallel 2 once gh works)`,
      );
      expect(s.p.plan()).toContain('- [ ] Add alpha\n');

      // The user opens alpha's by hand; gh works again.
      const byHand = { number: 1, url: 'https://github.com/fake/repo/pull/1', headRefName: branch, baseRefName: 'main', state: 'OPEN' };
      s.setGhData({ pullRequests: [byHand] });
      const again = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stderr).toContain(`Unit add-alpha: its pull request was open already (${branch} into main): ${byHand.url}`);
      const opened = creates(s.gh()).slice(2);
      expect(opened.map((call) => (JSON.parse(call.stdin!) as { head: string }).head)).toEqual([units[1]!.branch]);
      expect(s.ghData().pullRequests.map((pr) => pr.headRefName)).toEqual([branch, units[1]!.branch]);
      expect(s.p.plan()).toContain(`- [x] Add alpha (in review: ${byHand.url})\n`);

      // Once more: every unit has landed, nothing is pushed or opened again.
      const calls = s.gh().length;
      const third = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(third.code, third.stdout + third.stderr).toBe(0);
      expect(creates(s.gh().slice(calls))).toEqual([]);
    },
    LONG,
  );

  it(
    'a push that fails leaves the unit on its branch with the commands to finish by hand; the next run pushes and opens it',
    async () => {
      const s = prProject({}, { originUrl: '/nonexistent/origin.git' });
      const run = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(run.code, run.stdout + run.stderr).toBe(2);
      const alpha = s.p.state().units[0]!;
      const branch = alpha.branch as string;
      expect(alpha.state).toBe('needs-review');
      expect(alpha.exit_reason).toMatch(/^its branch could not be pushed to origin: fatal: '.*' does not appear to be a git repository$/);
      expect(run.stdout).toContain(
        `    finish it: git push origin ${branch}, then gh pr create --head ${branch} --base main; then ralph --parallel 2 finds the pull request, ticks the item and records its URL (or just ralph --parallel 2 once origin takes the push)`,
      );
      expect(creates(s.gh())).toEqual([]);
      expect(s.p.branches()).toContain(branch);

      s.p.project.git('remote', 'set-url', 'origin', s.origin);
      const again = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(s.onOrigin(`refs/heads/${branch}`)).toBeDefined();
      expect(creates(s.gh())).toHaveLength(2);
      expect(s.p.state().units.map((u) => u.state)).toEqual(['in-review', 'in-review']);
    },
    LONG,
  );

  it(
    'an item that comes after one in review starts from its branch, and its pull request asks to merge into that branch',
    async () => {
      const s = prProject(
        {},
        {
          plan: {
            items: ['Add the API', 'Document the API (after: add the API)'],
            calls: [doesItem('Add the API', { 'api.txt': 'api\n' }), doesItem('Document the API', { 'api-docs.txt': 'docs\n' })],
          },
        },
      );
      const run = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const [api, docs] = s.p.state().units;
      expect([api!.state, docs!.state]).toEqual(['in-review', 'in-review']);
      // The docs' branch holds the API's work under its own.
      expect(s.p.project.git('show', `refs/heads/${docs!.branch as string}:api.txt`)).toBe('api\n');
      const requests = creates(s.gh()).map((call) => JSON.parse(call.stdin!) as Record<string, unknown>);
      expect(requests.map((r) => [r.head, r.base])).toEqual([
        [api!.branch, 'main'],
        [docs!.branch, api!.branch],
      ]);
    },
    LONG,
  );

  it(
    'refuses before anything runs when there is no origin',
    async () => {
      const s = prProject();
      s.p.project.git('remote', 'remove', 'origin');
      const run = await s.ralph(['--parallel', '2', '--parallel-land', 'pr']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("--parallel-land pr pushes each unit's branch to origin, and this repository has no remote named origin");
      expect(s.p.claude.runs()).toEqual([]);
    },
    LONG,
  );
});
