// The fallback between agents with a fake clock (the loop's own sleeps move time): Claude hits
// its 5-hour limit, the next loops run on Codex with a fresh session and the same prompt, and
// once the limit has reset the loop is back on Claude; a fallback whose sign-in fails is left
// out; when every agent is limited the run waits for the earliest reset.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeCodex, type FakeCodex, type FakeCodexScenario } from '../../helpers/fake-codex.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { FAST_LOOP_RC, loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { useCleanups } from '../../helpers/cleanups.js';

const START = Date.parse('2026-11-30T03:10:00Z');
const at = (hhmm: string) => Date.parse(`2026-11-30T${hhmm}:00Z`);
const PLAN = '# Fix Plan\n' + Array.from({ length: 8 }, (_, i) => `- [ ] item ${i + 1}\n`).join('');
const RC = `${FAST_LOOP_RC}FALLBACK_AGENTS=codex\nLOOP_DELAY_SECONDS=120\nUSAGE_LIMIT_MARGIN_SECONDS=60\n`;

const claudeWork = (n: number) => ({
  tickFixPlan: 1,
  writeFiles: { [`src/claude${n}.txt`]: `${n}\n` },
  statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
});
const claudeDone = { tickFixPlan: 'all' as const, writeFiles: { 'src/done.txt': 'done\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
const claudeLimited = (resetAt: number) => ({ outcome: 'usage_limit' as const, resetsAt: Math.floor(resetAt / 1000) });
const codexWork: FakeCodexScenario = {
  defaults: { tickFixPlan: 1, writeFiles: { 'src/codex.txt': 'codex {call}\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
};

const cleanups = useCleanups();

function setup(claude: FakeScenario, codex: FakeCodexScenario): { p: LoopProject; codex: FakeCodex } {
  const p = loopProject(claude, { files: { '.ralphrc': RC, '.ralph/fix_plan.md': PLAN }, clock: fakeClock(START) });
  const fake = withFakeCodex(codex, p.fake.env);
  cleanups.push(
    () => fake.cleanup(),
    () => p.cleanup(),
  );
  return { p, codex: fake };
}

function metrics(p: LoopProject): Array<Record<string, unknown>> {
  return readFileSync(`${p.project.dir}/.ralph/logs/metrics.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('falling back to another agent at a usage limit', () => {
  it('runs on Codex while Claude is limited, and on Claude again once its limit has reset', async () => {
    const { p, codex } = setup({ calls: [claudeWork(1), claudeLimited(at('03:20')), claudeDone] }, codexWork);
    const r = await p.run({ MAX_LOOPS: 20 }, { env: codex.env });
    expect(r.exitCode, r.logs.join('\n')).toBe(0);

    const lines = metrics(p);
    // 03:10 claude, 03:12 claude (limited until 03:20 + 60 s margin), codex at 03:14 … 03:20,
    // then 03:22 claude, which finishes the plan.
    expect(lines.map((m) => m.agent)).toEqual(['claude', 'claude', 'codex', 'codex', 'codex', 'codex', 'claude']);
    expect(lines.map((m) => m.outcome)).toEqual(['ok', 'usage_limit', 'ok', 'ok', 'ok', 'ok', 'ok']);
    const back = lines[6]!;
    expect(Date.parse(String(back.timestamp))).toBeGreaterThanOrEqual(at('03:21'));
    expect(r.logs.join('\n')).toMatch(/Falling back to Codex \(codex\) while Claude Code is unavailable until /);
    expect(r.logs.join('\n')).toContain("Claude's usage limit has reset: back to Claude Code");

    // Codex starts its own session, then resumes it; it gets the same prompt and plan context.
    const runs = codex.runs();
    expect(runs).toHaveLength(4);
    expect(runs[0]!.resumedFrom).toBeNull();
    expect(runs[1]!.resumedFrom).toBe(runs[0]!.threadId);
    expect(runs[0]!.stdin).toContain('Work through fix_plan.md.');
    expect(runs[0]!.stdin).toContain('Ralph loop context');
    // Claude never got Codex's thread id: its first call after the limit starts fresh.
    const claudeRuns = p.fake.runs();
    expect(claudeRuns).toHaveLength(3);
    expect(claudeRuns[2]!.argv).not.toContain('--resume');

    // One run across agents: its loops, and the agent of each in the record and status.
    expect(p.status()).toMatchObject({ exit_reason: 'plan_complete', agent: 'claude', run_loops: 7 });
    expect(p.readJson('.ralph/.agent_limits')).toEqual({});
  });

  it('leaves out a fallback agent whose sign-in fails, and then waits for the primary', async () => {
    const { p, codex } = setup({ calls: [claudeLimited(at('03:20')), claudeDone] }, { calls: [{ replay: '401' }] });
    const r = await p.run({ MAX_LOOPS: 10 }, { env: codex.env });
    expect(r.exitCode, r.logs.join('\n')).toBe(0);
    expect(codex.runs()).toHaveLength(1);
    expect(r.logs.join('\n')).toContain('Codex is left out for the rest of this run (its sign-in failed)');
    expect(r.stderr.text).toContain('To fix: sign Codex in with `codex login`');
    const lines = metrics(p);
    expect(lines.map((m) => [m.agent, m.outcome])).toEqual([
      ['claude', 'usage_limit'],
      ['codex', 'auth'],
      ['claude', 'ok'],
    ]);
    expect(Date.parse(String(lines[2]!.timestamp))).toBeGreaterThanOrEqual(at('03:21'));
  });

  it('when every agent is limited, waits for the earliest reset', async () => {
    // Claude resets at 03:40; Codex's quota states no time (the 60-minute fallback: 04:1x).
    const { p, codex } = setup({ calls: [claudeLimited(at('03:40')), claudeDone] }, { calls: [{ replay: 'quota' }] });
    const r = await p.run({ MAX_LOOPS: 10 }, { env: codex.env });
    expect(r.exitCode, r.logs.join('\n')).toBe(0);
    expect(codex.runs()).toHaveLength(1);
    const lines = metrics(p);
    expect(lines.map((m) => [m.agent, m.outcome])).toEqual([
      ['claude', 'usage_limit'],
      ['codex', 'usage_limit'],
      ['claude', 'ok'],
    ]);
    const resumed = Date.parse(String(lines[2]!.timestamp));
    expect(resumed).toBeGreaterThanOrEqual(at('03:41'));
    expect(resumed).toBeLessThan(at('04:00'));
  });
});
