// The fleet from a laptop through a fake gh: `status` tells each labelled issue's state from its
// labels, runs (by the workflow's run-name) and pull requests; `sweep` lists the ones nobody
// works on; `start` labels or dispatches; `stop` cancels the issue's running job; `logs`
// downloads the latest artifact into .ralph/fleet/<n>/ and summarises its metrics.

import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFleetRepo, type FleetRepo } from '../../helpers/fleet-repo.js';
import { runCli } from '../../helpers/run-cli.js';

const labelled = (number: number, ...extra: string[]) => ({ number, title: `Issue ${number}`, labels: [{ name: 'ralph' }, ...extra.map((name) => ({ name }))], updatedAt: '2026-12-01T10:00:00Z' });
const run = (id: number, issue: number, status: string, conclusion = '') => ({
  databaseId: id, displayTitle: `ralph issue #${issue}`, status, conclusion, createdAt: '2026-12-01T11:00:00Z', updatedAt: `2026-12-01T12:00:${String(id).padStart(2, '0')}Z`, url: `https://github.com/fake/repo/actions/runs/${id}`,
});

let repo: FleetRepo | undefined;
afterEach(() => repo?.cleanup());

function setUp(): { dir: string; env: NodeJS.ProcessEnv } {
  repo = withFleetRepo({
    gh: {
      issues: [labelled(1), labelled(2), labelled(3, 'ralph-needs-help'), labelled(4), labelled(5), labelled(6, 'ralph-done'), { number: 9, title: 'Unlabelled', labels: [] }],
      runs: [run(21, 5, 'in_progress'), run(20, 5, 'completed', 'success'), run(12, 1, 'in_progress'), run(11, 4, 'completed', 'failure'), run(10, 99, 'completed', 'success')],
      pullRequests: [{ number: 30, url: 'https://github.com/fake/repo/pull/30', headRefName: 'ralph/issue-2' }],
      artifacts: { '11': { 'ralph-issue-4-11-1/logs/metrics.jsonl': '{"timestamp":"2026-12-01T11:00:00+00:00","loop":1,"duration":14,"success":true,"calls":1,"cost_usd":0.25}\n' } },
    },
  });
  return { dir: repo.cloneJob(), env: { ...repo.ghEnv, PATH: [repo.ghBinDir, process.env.PATH].join(delimiter) } };
}

describe('ralph-fleet status, sweep, start, stop, logs', () => {
  it('status --json: each labelled open issue with its state, last run and pull request', async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['status', '--json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ issue: number; state: string; run: { id: number } | null; pull_request: string | null }>;
    expect(rows.map((row) => [row.issue, row.state, row.run?.id ?? null, row.pull_request])).toEqual([
      [1, 'running', 12, null],
      [2, 'done', null, 'https://github.com/fake/repo/pull/30'],
      [3, 'needs help', null, null],
      [4, 'queued', 11, null],
      [5, 'continuing', 21, null],
      [6, 'done', null, null],
    ]);
    const text = await runCli('ralph-fleet', ['status'], { cwd: dir, env });
    expect(text.stdout).toMatch(/^#5 +continuing +run 21 \(in_progress\)/m);
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
    const none = await runCli('ralph-fleet', ['stop', '4'], { cwd: dir, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Issue #4 has no running job');
  }, 60_000);

  it("logs downloads the issue's latest artifact into .ralph/fleet/<n>/ and summarises it", async () => {
    const { dir, env } = setUp();
    const result = await runCli('ralph-fleet', ['logs', '4'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(`${dir}/.ralph/fleet/4/11/ralph-issue-4-11-1/logs/metrics.jsonl`)).toBe(true);
    expect(result.stdout).toContain('Downloaded the logs of run 11 into .ralph/fleet/4/11');
    expect(result.stdout).toContain('$0.25');
  }, 60_000);
});
