// The fallback through the real `bin/ralph`: Claude (the fake, a subscriber) hits its 5-hour
// limit in loop 2 with FALLBACK_AGENTS=codex; loop 3 runs on Codex (the fake); once the stated
// reset has passed (a few seconds ahead, no margin) the next loop runs on Claude again, which
// finishes the plan; `ralph --status --json` shows the agent of every loop.
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { withFakeCodex } from '../../helpers/fake-codex.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const RESET_IN_SEC = 4;
const PLAN = '# Fix Plan\n' + Array.from({ length: 40 }, (_, i) => `- [ ] item ${i + 1}\n`).join('');

describe('FALLBACK_AGENTS=codex', () => {
  it("loop 3 runs on Codex after Claude's limit in loop 2, and Claude runs again after the reset", async () => {
    // A second between loops: Codex, one item a loop, cannot use up the plan or --max-loops before
    // Claude's reset, however fast the machine.
    const p = tmpProject(
      ralphProjectTree({
        '.ralphrc': `${FAST_LOOP_RC}FALLBACK_AGENTS=codex\nUSAGE_LIMIT_MARGIN_SECONDS=0\nLOOP_DELAY_SECONDS=1\n`,
        '.ralph/fix_plan.md': PLAN,
      }),
      { git: true },
    );
    const claude = withFakeClaude(
      {
        calls: [
          { tickFixPlan: 1, writeFiles: { 'src/a.txt': 'a\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
          { outcome: 'usage_limit', family: '2.1.332', rateLimitType: 'five_hour', resetsInSec: RESET_IN_SEC },
          { tickFixPlan: 'all', writeFiles: { 'src/done.txt': 'done\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } },
        ],
      },
      { auth: 'subscription' },
    );
    const codex = withFakeCodex(
      { defaults: { tickFixPlan: 1, writeFiles: { 'src/codex.txt': 'codex {call}\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } } },
      claude.env,
    );
    cleanups.push(
      () => codex.cleanup(),
      () => claude.cleanup(),
      () => p.cleanup(),
    );
    const env = { ...codex.env, ...GIT_TEST_ENV };

    const run = await runCli('ralph', ['--max-loops', '40'], { cwd: p.dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Fallback agents (while the one before is at its usage limit): Codex');
    expect(run.stderr).toMatch(/Claude usage limit reached: You've hit your/);

    const claudeRuns = claude.runs();
    expect(claudeRuns).toHaveLength(3);
    expect(codex.runs().length).toBeGreaterThanOrEqual(1);
    // Claude was called again only once its stated reset had passed.
    const limitedAt = Date.parse(claudeRuns[1]!.startedAt);
    expect(Date.parse(claudeRuns[2]!.startedAt)).toBeGreaterThanOrEqual(limitedAt + (RESET_IN_SEC - 1) * 1000);

    const status = JSON.parse((await runCli('ralph', ['--status', '--json'], { cwd: p.dir, env })).stdout) as Record<string, any>;
    expect(status).toMatchObject({ status: 'completed', exit_reason: 'plan_complete', agent: 'claude' });
    const agents = (status.session_record.agents_by_loop as Array<{ loop: number; agent: string }>).map((a) => a.agent);
    expect(agents.slice(0, 3)).toEqual(['claude', 'claude', 'codex']);
    expect(agents.at(-1)).toBe('claude');
    expect(agents.slice(2, -1).every((a) => a === 'codex')).toBe(true);
    expect(status.session_record.agents_by_loop[1]).toMatchObject({ loop: 2, agent_result: 'usage_limit' });

    const stats = JSON.parse((await runCli('ralph-stats', ['--full'], { cwd: p.dir, env })).stdout) as Record<string, any>;
    expect(stats.by_agent.claude.loops).toBe(3);
    expect(stats.by_agent.codex.loops).toBe(agents.length - 3);
  });
});
