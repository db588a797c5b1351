// Codex through ralph (a run's loop in the test's process, tests/helpers/ralph-in-process.ts;
// runs after each other through the built bin/ralph) with the fake `codex` (modelled on the 0.169.0
// recordings): a 3-item plan to plan_complete, each call resuming the thread of the one before;
// a rejected id and a Claude id never block it; a 401 stops with exit 1 and the fix; the tokens
// (differences of Codex's running totals) reach status, metrics and ralph-stats.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeCodex, type FakeCodex, type FakeCodexScenario } from '../../helpers/fake-codex.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const PLAN = '# Fix Plan\n- [ ] first\n- [ ] second\n- [ ] third\n';

function setup(scenario: FakeCodexScenario): { p: TmpProject; codex: FakeCodex; env: Record<string, string> } {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}AGENT_PROVIDER=codex\n`, '.ralph/fix_plan.md': PLAN }), { git: true });
  const codex = withFakeCodex(scenario);
  cleanups.push(
    () => codex.cleanup(),
    () => p.cleanup(),
  );
  return { p, codex, env: { ...codex.env, ...GIT_TEST_ENV } };
}

const working = (n: number) => ({
  tickFixPlan: 1,
  writeFiles: { [`src/item${n}.txt`]: `item ${n}\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});

describe('ralph on Codex', () => {
  it('runs a 3-item plan to plan_complete, each call resuming the thread of the one before', async () => {
    const { p, codex, env } = setup({ calls: [working(1), working(2), { ...working(3), statusBlock: {} }] });
    const run = await runRalphInProcess(p.dir, [], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Ralph loop starting with Codex');
    expect(run.stderr).toMatch(/Codex cannot honour ALLOWED_TOOLS tool by tool: it runs with the sandbox workspace-write/);

    const runs = codex.runs();
    expect(runs).toHaveLength(3);
    expect(runs[0]!.argv).toEqual(['exec', '--json', '--skip-git-repo-check', '-s', 'workspace-write', '-']);
    expect(runs[0]!.resumedFrom).toBeNull();
    expect(runs[1]!.argv).toEqual(['exec', '--json', '--skip-git-repo-check', '-s', 'workspace-write', 'resume', runs[0]!.threadId, '-']);
    expect(runs[2]!.resumedFrom).toBe(runs[0]!.threadId);
    expect(run.stderr).toContain(`Resuming Codex session: ${runs[0]!.threadId!.slice(0, 20)}...`);
    // The prompt and the loop context go on stdin, never into argv.
    expect(runs[1]!.stdin).toContain('Work through fix_plan.md.');
    expect(runs[1]!.stdin).toContain('Ralph loop context');
    expect(runs.flatMap((r) => r.argv).join(' ')).not.toContain('fix_plan');

    const status = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: p.dir, env })).stdout) as Record<string, any>;
    expect(status).toMatchObject({ status: 'completed', exit_reason: 'plan_complete', agent: 'codex', plan: { done: 3, remaining: 0 } });
    // 3 calls of 200 fresh input + 1000 cached + 60 output each: the differences of the thread's
    // running totals (1260, 2520, 3780), not their sum (7560).
    expect(status.budgets).toMatchObject({ run_tokens: 3780, run_loops: 3 });
    expect(status.session_record.agents_by_loop).toEqual([
      { loop: 1, agent: 'codex', agent_result: 'ok' },
      { loop: 2, agent: 'codex', agent_result: 'ok' },
      { loop: 3, agent: 'codex', agent_result: 'ok' },
    ]);
    const metrics = readFileSync(p.path('.ralph/logs/metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(metrics.map((m) => [m.agent, m.input_tokens, m.output_tokens, m.cache_read_tokens])).toEqual([
      ['codex', 200, 60, 1000],
      ['codex', 200, 60, 1000],
      ['codex', 200, 60, 1000],
    ]);
    const stats = JSON.parse((await runCli('ralph-stats', ['--full'], { cwd: p.dir, env })).stdout) as Record<string, any>;
    expect(stats.by_agent).toEqual({ codex: expect.objectContaining({ loops: 3, input_tokens: 600, output_tokens: 180 }) });
  });

  it('a rejected thread id falls back to a fresh session; a Claude session id is never given to Codex', async () => {
    const { p, codex, env } = setup({ calls: [{ statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
    const now = new Date().toISOString();
    writeFileSync(p.path('.ralph/.claude_session_id'), JSON.stringify({ session_id: '01a23199-0000-7000-8000-000000000000', timestamp: now, agent: 'codex' }));
    const first = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env });
    expect(first.code, first.stderr).toBe(3);
    const runs = codex.runs();
    expect(runs.map((r) => [r.resumedFrom, r.exitCode])).toEqual([
      ['01a23199-0000-7000-8000-000000000000', 1],
      [null, 0],
    ]);
    expect(first.stderr).toContain('Codex has no session 01a23199-0000-7000-8...; retrying with a fresh session');

    writeFileSync(p.path('.ralph/.claude_session_id'), JSON.stringify({ session_id: 'a0000000-0000-4000-8000-000000000002', timestamp: now }));
    const second = await runCli('ralph', ['--max-loops', '1', '--fresh'], { cwd: p.dir, env });
    expect(second.code, second.stderr).toBe(3);
    expect(codex.runs()[2]!.resumedFrom).toBeNull();
    expect(second.stderr).toContain('The saved session belongs to "claude", not codex: it is not resumed');
  });

  it('a 401 stops the run with exit 1 and the fix', async () => {
    const { p, codex, env } = setup({ calls: [{ replay: '401' }] });
    const run = await runRalphInProcess(p.dir, [], env);
    expect(run.code).toBe(1);
    expect(codex.runs()).toHaveLength(1);
    expect(run.stderr).toContain('Codex: unexpected status 401 Unauthorized: Incorrect API key provided.');
    expect(run.stderr).toContain('To fix: sign Codex in with `codex login`');
    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8')) as Record<string, unknown>;
    expect(status).toMatchObject({ exit_reason: 'authentication_failed', agent: 'codex' });
  });
});
