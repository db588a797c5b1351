// The fleet from a laptop through a fake gh: `status` tells each labelled issue's state from its
// labels, runs (by the workflow's run-name) and pull requests; `sweep` lists the ones nobody
// works on; `start` labels or dispatches; `stop` cancels the issue's running job; `logs`
// downloads the latest artifact into .ralph/fleet/<n>/ and summarises its metrics.

import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { runCli } from '../../helpers/run-cli.js';

const labelled = (number: number, ...extra: string[]) => ({
  number,
  title: `Issue ${number}`,
  labels: [{ name: 'ralph' }, ...extra.map((name) => ({ name }))],
  updatedAt: '2026-12-01T10:00:00Z',
});
const run = (id: number, issue: number, status: string, conclusion = '') => ({
  databaseId: id,
  displayTitle: `ralph issue #${issue}`,
  status,
  conclusion,
  createdAt: '2026-12-01T11:00:00Z',
  updatedAt: `2026-12-01T12:00:${String(id).padStart(2, '0')}Z`,
  url: `https://github.com/fake/repo/actions/runs/${id}`,
});

/** A comment with the cost marker a fleet job ends its comments with. */
const costComment = (login: string, authorAssociation: string, costUsd: number, createdAt: string) => ({
  author: { login },
  authorAssociation,
  createdAt,
  body: `ralph's job 1 reached its time budget.\n\nCost so far: $${costUsd}.\n<!-- ralph-fleet-cost {"cost_usd":${costUsd},"calls":3,"unknown_cost_calls":0} -->`,
});
const chatter = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ author: { login: 'someone' }, authorAssociation: 'NONE', body: `comment ${i}`, createdAt: '2026-12-01T09:00:00Z' }));

let repo: FleetRepo | undefined;
afterEach(() => repo?.cleanup());

function setUp(): { dir: string; env: NodeJS.ProcessEnv } {
  repo = withFleetRepo({
    gh: {
      issues: [
        labelled(1),
        labelled(2),
        labelled(3, 'ralph-needs-help'),
        // Reported by the job's bot; a stranger's later marker does not count.
        {
          ...labelled(4),
          comments: [costComment('github-actions', 'NONE', 1.5, '2026-12-01T11:30:00Z'), costComment('stranger', 'NONE', 0.01, '2026-12-01T11:40:00Z')],
        },
        // The report is the 101st comment, past what gh issue list gives: read with gh issue view.
        {
          ...labelled(5),
          comments: [
            costComment('github-actions', 'NONE', 0.5, '2026-12-01T08:00:00Z'),
            ...chatter(99),
            costComment('owner', 'OWNER', 2.25, '2026-12-01T11:50:00Z'),
          ],
        },
        labelled(6, 'ralph-done'),
        labelled(8),
        { number: 9, title: 'Unlabelled', labels: [] },
      ],
      // The schedule's run 30: issue 8's job runs in it.
      runs: [
        { ...run(30, 0, 'in_progress'), displayTitle: 'ralph sweep' },
        run(21, 5, 'in_progress'),
        run(20, 5, 'completed', 'success'),
        run(12, 1, 'in_progress'),
        run(11, 4, 'completed', 'failure'),
        run(10, 99, 'completed', 'success'),
      ],
      pullRequests: [{ number: 30, url: 'https://github.com/fake/repo/pull/30', headRefName: 'ralph/issue-2' }],
      runJobs: {
        '30': [
          {
            name: 'sweep',
            status: 'completed',
            conclusion: 'success',
            startedAt: '2026-12-01T12:00:00Z',
            completedAt: '2026-12-01T12:01:00Z',
            url: 'https://github.com/fake/repo/actions/runs/30/job/1',
          },
          {
            name: 'ralph issue #8',
            status: 'in_progress',
            conclusion: '',
            startedAt: '2026-12-01T12:02:00Z',
            url: 'https://github.com/fake/repo/actions/runs/30/job/2',
          },
        ],
      },
      artifacts: {
        '11': {
          'ralph-issue-44-11-1/logs/other.txt': 'not issue 4\n',
          'ralph-issue-4-11-1/logs/metrics.jsonl':
            '{"timestamp":"2026-12-01T11:00:00+00:00","loop":1,"duration":14,"success":true,"calls":1,"cost_usd":0.25}\n',
        },
      },
    },
  });
  return { dir: repo.cloneJob(), env: { ...repo.ghEnv, PATH: [repo.ghBinDir, process.env.PATH].join(delimiter) } };
}

describe('ralph-fleet status, sweep, start, stop, logs', () => {
  it('status --json: each labelled open issue with its state, last run, pull request, cost so far and last update', async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['status', '--json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    type Row = {
      issue: number;
      state: string;
      run: { id: number } | null;
      pull_request: string | null;
      cost_usd: number | null;
      cost_reported_at: string | null;
      updated_at: string;
    };
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.map((row) => [row.issue, row.state, row.run?.id ?? null, row.pull_request, row.cost_usd, row.cost_reported_at])).toEqual([
      [1, 'running', 12, null, null, null],
      [2, 'done', null, 'https://github.com/fake/repo/pull/30', null, null],
      [3, 'needs help', null, null, null, null],
      [4, 'queued', 11, null, 1.5, '2026-12-01T11:30:00Z'],
      [5, 'continuing', 21, null, 2.25, '2026-12-01T11:50:00Z'],
      [6, 'done', null, null, null, null],
      [8, 'running', 30, null, null, null],
    ]);
    expect(rows.find((row) => row.issue === 8)?.run).toMatchObject({ url: 'https://github.com/fake/repo/actions/runs/30/job/2' });
    // The last update: the issue's or its last run's, whichever is newer.
    expect(rows.find((row) => row.issue === 5)?.updated_at).toBe('2026-12-01T12:00:21Z');
    expect(repo!.ghCalls().map((c) => c.argv.join(' '))).toContain('issue view 5 --json comments');
    const text = await runCli('ralph-fleet', ['status'], { cwd: dir, env });
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^ISSUE +STATE +RUN +COST +PULL REQUEST +UPDATED +TITLE$/);
    expect(text.stdout).toMatch(/^#5 +continuing +21 \(in_progress\) +\$2\.25 +- +2026-12-01T12:00:21Z +Issue 5$/m);
    expect(text.stdout).toMatch(/^#1 +running +12 \(in_progress\) +- +- +2026-12-01T12:00:12Z +Issue 1$/m);
    expect(text.stdout).toMatch(/^#2 +done +- +- +https:\/\/github\.com\/fake\/repo\/pull\/30 +/m);
    // One column each: every row's cost starts where the header's does.
    for (const line of lines.slice(1, -1)) expect(line.indexOf('$') === -1 || line.indexOf('$') === lines[0]!.indexOf('COST')).toBe(true);
  }, 60_000);

  it('sweep: only the issues nobody works on, as the workflow output', async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['sweep', '--label', 'ralph'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('issues=[4]\n');
  }, 60_000);

  it('start labels an unlabelled issue and dispatches one already labelled; stop cancels the running job', async () => {
    const { dir, env } = setUp();
    expect((await runCli('ralph-fleet', ['start', '9', '4'], { cwd: dir, env })).code).toBe(0);
    expect((await runCli('ralph-fleet', ['stop', '1'], { cwd: dir, env })).code).toBe(0);
    const calls = repo!.ghCalls().map((c) => c.argv.join(' '));
    expect(calls).toContain('issue edit 9 --add-label ralph');
    expect(calls).toContain('workflow run ralph.yml --ref main -f issue=4');
    expect(calls).toContain('run cancel 12');
    // A job of the schedule's run: GitHub cancels whole runs, so ralph says how instead of stopping the other issues.
    const swept = await runCli('ralph-fleet', ['stop', '8'], { cwd: dir, env });
    expect(swept.code).toBe(1);
    expect(swept.stderr).toContain("Issue #8 is worked on in the schedule's run 30");
    expect(swept.stderr).toContain('gh run cancel 30 stops them all');
    expect(repo!.ghCalls().map((c) => c.argv.join(' '))).not.toContain('run cancel 30');
    const empty = await runCli('ralph-fleet', ['status', '--label', 'nobody'], { cwd: dir, env });
    expect(empty.stdout).toBe('No open issue carries the label "nobody"\n');
    const none = await runCli('ralph-fleet', ['stop', '4'], { cwd: dir, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Issue #4 has no running job');
  }, 60_000);

  it('start on an issue whose job runs says so and starts nothing', async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['start', '1', '4'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'Issue #1 already has a job running (run 12, https://github.com/fake/repo/actions/runs/12): nothing started. ralph-fleet stop 1 cancels it.\nStarted issue #4\n',
    );
    const calls = repo!.ghCalls().map((c) => c.argv.join(' '));
    expect(calls.filter((call) => call.startsWith('workflow run') || call.startsWith('issue edit'))).toEqual(['workflow run ralph.yml --ref main -f issue=4']);
  }, 60_000);

  it("logs downloads the issue's latest artifact into .ralph/fleet/<n>/ and summarises it", async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['logs', '4'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(`${dir}/.ralph/fleet/4/11/ralph-issue-4-11-1/logs/metrics.jsonl`)).toBe(true);
    // Only this issue's artifact: a run of the schedule holds those of several issues.
    expect(existsSync(`${dir}/.ralph/fleet/4/11/ralph-issue-44-11-1`)).toBe(false);
    expect(result.stdout).toContain('Downloaded the logs of run 11 into .ralph/fleet/4/11');
    expect(result.stdout).toContain('$0.25');
  }, 60_000);
});
