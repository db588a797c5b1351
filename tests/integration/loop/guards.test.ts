// The guards end to end on a fake clock: circuit breaker, hourly call limit, usage-limit waits
// (stated reset time, persisted across a restart), auth failures, cost budget, permission
// denials. Real fake-claude processes and real git; only time is simulated.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { formatCountdown } from '../../../lib/limits/countdown.js';
import { hourKey, nextResetTime } from '../../../lib/limits/rate-window.js';
import { LoopEvents } from '../../../lib/loop/events.js';
import { newRunSpend } from '../../../lib/limits/limits-store.js';
import { fakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import type { FakeCallScript, FakeScenario } from '../../helpers/fake-claude.js';

const OPEN_PLAN = { '.ralph/fix_plan.md': '- [ ] build it\n' };
const idle = { resultText: 'Looked around, nothing changed.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
const work = (n: number) => ({ writeFiles: { [`f${n}.txt`]: String(n) }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
const LIMIT_TEXT = "You've hit your 5-hour limit · resets 5:45am (UTC)";

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario, options: { files?: Record<string, string>; clock?: FakeClock } = {}): LoopProject {
  current = loopProject(scenario, { files: { ...OPEN_PLAN, ...options.files }, clock: options.clock });
  return current;
}

function breakerFile(p: LoopProject, state: Record<string, unknown>): void {
  writeFileSync(
    p.project.path('.ralph/.circuit_breaker_state'),
    JSON.stringify({
      consecutive_no_progress: 3,
      consecutive_same_error: 0,
      consecutive_permission_denials: 0,
      last_progress_loop: 0,
      total_opens: 1,
      reason: 'No progress detected in 3 consecutive loops',
      current_loop: 3,
      ...state,
    }),
  );
}

/** Records the (fake) time of every agent start. */
function agentStarts(clock: FakeClock): { events: LoopEvents; times: number[] } {
  const events = new LoopEvents();
  const times: number[] = [];
  events.on('agent:started', () => times.push(clock.now()));
  return { events, times };
}

describe('circuit breaker', () => {
  it('opens after three loops without progress: exactly 3 calls, exit 2, CLOSED→HALF_OPEN→OPEN', async () => {
    const p = setup({ calls: [idle] });
    const result = await p.run();
    expect(result.exitCode).toBe(2);
    expect(p.fake.runs()).toHaveLength(3);
    expect(p.readJson('.ralph/.circuit_breaker_state')).toMatchObject({ state: 'OPEN', total_opens: 1 });
    const history = p.readJson('.ralph/.circuit_breaker_history') as Array<{ from_state: string; to_state: string }>;
    expect(history.map((h) => `${h.from_state}→${h.to_state}`)).toEqual(['CLOSED→HALF_OPEN', 'HALF_OPEN→OPEN']);
    expect(p.status()).toMatchObject({ status: 'halted', exit_reason: 'stagnation_detected' });
    expect(result.stderr.text).toContain('EXECUTION HALTED: Circuit Breaker Opened');
  });

  it('an OPEN breaker opened a minute ago makes no call', async () => {
    const clock = fakeClock();
    const p = setup({ calls: [work(1)] }, { clock });
    breakerFile(p, { state: 'OPEN', opened_at: new Date(clock.now() - 60_000).toISOString(), last_change: new Date(clock.now() - 60_000).toISOString() });
    const result = await p.run();
    expect(result.exitCode).toBe(2);
    expect(p.fake.runs()).toHaveLength(0);
  });

  it('after the 30-minute cooldown the run proceeds in HALF_OPEN and closes on progress', async () => {
    const clock = fakeClock();
    const p = setup({ calls: [work(1)] }, { clock });
    const opened = new Date(clock.now() - 31 * 60_000).toISOString();
    breakerFile(p, { state: 'OPEN', opened_at: opened, last_change: opened });
    const result = await p.run({ MAX_LOOPS: 1 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(1);
    const history = p.readJson('.ralph/.circuit_breaker_history') as Array<{ to_state: string }>;
    expect(history.map((h) => h.to_state)).toEqual(['HALF_OPEN', 'CLOSED']);
    expect(p.readJson('.ralph/.circuit_breaker_state')).toMatchObject({ state: 'CLOSED' });
  });

  it('--auto-reset-circuit closes an OPEN breaker at startup and keeps total_opens', async () => {
    const clock = fakeClock();
    const p = setup({ calls: [work(1)] }, { clock });
    breakerFile(p, { state: 'OPEN', total_opens: 4, opened_at: new Date(clock.now()).toISOString(), last_change: new Date(clock.now()).toISOString() });
    const result = await p.run({ MAX_LOOPS: 1, CB_AUTO_RESET: true });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(1);
    expect(p.readJson('.ralph/.circuit_breaker_state')).toMatchObject({ state: 'CLOSED', total_opens: 4 });
  });
});

describe('hourly call limit', () => {
  it('at the limit: no call, a countdown until the next hour, then the first call', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    const start = clock.now();
    const p = setup({ calls: [work(1)] }, { clock });
    writeFileSync(p.project.path('.ralph/.call_count'), '100\n');
    writeFileSync(p.project.path('.ralph/.last_reset'), `${hourKey(clock.now())}\n`);
    const { events, times } = agentStarts(clock);
    const waits: string[] = [];
    events.on('limit:waiting', (w) => waits.push(w.kind));
    const result = await p.run({ MAX_LOOPS: 1 }, { events });
    expect(result.exitCode).toBe(3);
    expect(waits).toEqual(['rate']);
    expect(p.fake.runs()).toHaveLength(1);
    const reset = nextResetTime(start);
    expect(times[0]).toBe(reset);
    expect(readFileSync(p.project.path('.ralph/.call_count'), 'utf8').trim()).toBe('1');
    expect(result.logs.join('\n')).toContain(`time until retry: ${formatCountdown(reset - start)}`);
  });
});

describe('usage limits', () => {
  const limited: FakeCallScript = { outcome: 'usage_limit', family: '2.1.332', limitText: LIMIT_TEXT };

  it('waits until the stated reset time (plus margin), not a fixed hour', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    const p = setup({ calls: [limited, work(2)] }, { clock });
    const { events, times } = agentStarts(clock);
    const result = await p.run({ MAX_LOOPS: 2 }, { events });
    expect(result.exitCode).toBe(3);
    expect(times).toHaveLength(2);
    const resetAt = Date.parse('2026-11-30T05:45:00Z');
    expect(times[1]!).toBeGreaterThanOrEqual(resetAt);
    expect(times[1]!).toBeLessThanOrEqual(resetAt + 5 * 60_000);
  });

  it('limit text inside a tool result is not a usage limit', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    const p = setup({ calls: [{ ...work(1), toolOutputContains: LIMIT_TEXT }, work(2)] }, { clock });
    const { events, times } = agentStarts(clock);
    const result = await p.run({ MAX_LOOPS: 2 }, { events });
    expect(result.exitCode).toBe(3);
    expect(times[1]! - times[0]!).toBeLessThan(60_000);
  });

  it('a timed-out run is never a usage limit, whatever it printed', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    const p = setup({ calls: [{ steps: [{ text: LIMIT_TEXT }], hang: 'beforeResult' }, work(2)] }, { clock });
    writeFileSync(p.project.path('.ralphrc'), `${readFileSync(p.project.path('.ralphrc'), 'utf8')}CLAUDE_TIMEOUT_SECONDS=1\n`);
    const waits: string[] = [];
    const { events } = agentStarts(clock);
    events.on('limit:waiting', (w) => waits.push(w.kind));
    await p.run({ MAX_LOOPS: 2 }, { events });
    expect(waits).toEqual([]);
    expect(p.fake.runs()).toHaveLength(2);
  });

  it('the wait is held by the run: a .usage_limit_wait removed between loops skips nothing', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    // Once the first call is over, whatever reads the clock next finds the wait file gone, as
    // if an escaped agent process had deleted it right after ralph wrote it.
    let waitFile = '';
    let armed = false;
    const watched = {
      ...clock,
      now: () => {
        if (armed && existsSync(waitFile)) rmSync(waitFile);
        return clock.now();
      },
    };
    const p = setup({ calls: [limited, work(2)] }, { clock: watched });
    waitFile = p.project.path('.ralph/.usage_limit_wait');
    const { events, times } = agentStarts(clock);
    events.on('agent:finished', () => (armed = true));
    const result = await p.run({ MAX_LOOPS: 2 }, { events });
    expect(result.exitCode).toBe(3);
    expect(times).toHaveLength(2);
    expect(times[1]!).toBeGreaterThanOrEqual(Date.parse('2026-11-30T05:45:00Z'));
  });

  it('a restart during the wait keeps waiting: no call before the reset time', async () => {
    const clock = fakeClock('2026-11-30T03:10:00Z');
    const p = setup({ calls: [limited, work(2)] }, { clock });
    const first = new LoopEvents();
    first.on('limit:waiting', () => p.signals.emit('SIGTERM', 'SIGTERM'));
    const interrupted = await p.run({}, { events: first });
    expect(interrupted.exitCode).toBe(143);
    expect(p.readJson('.ralph/.usage_limit_wait')).toMatchObject({ resume_at: expect.stringContaining('2026-11-30T05:4') });

    // The run goes on: its limited call counts, so --max-loops 2 leaves room for one more.
    const { events, times } = agentStarts(clock);
    await p.run({ MAX_LOOPS: 2 }, { events });
    expect(times).toHaveLength(1);
    expect(times[0]!).toBeGreaterThanOrEqual(Date.parse('2026-11-30T05:45:00Z'));
  });
});

describe('transient API failures', () => {
  it('retries an overloaded API with bounded exponential backoff, without feeding the breaker', async () => {
    const clock = fakeClock();
    const overloaded: FakeCallScript = { outcome: 'overloaded', retries: 2 };
    const p = setup({ calls: [overloaded, overloaded, overloaded, work(4)] }, { clock });
    const waits: number[] = [];
    const { events } = agentStarts(clock);
    events.on('limit:waiting', (w) => waits.push(w.resumeAt - clock.now()));
    const result = await p.run({ MAX_LOOPS: 4 }, { events });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(4);
    expect(waits).toEqual([30_000, 60_000, 120_000]);
    expect(p.readJson('.ralph/.circuit_breaker_state')).toMatchObject({ state: 'CLOSED' });
  });
});

describe('fatal agent failures and budgets', () => {
  it('an invalid API key stops after one call with exit 1 and the fix', async () => {
    const p = setup({ calls: [{ isError: true, exitCode: 1, resultText: 'Invalid API key · Please run /login' }] });
    const result = await p.run();
    expect(result.exitCode).toBe(1);
    expect(p.fake.runs()).toHaveLength(1);
    // The failure once, then the fix once, as the run's closing message.
    const errors = result.logs.filter((line) => /Invalid API key|To fix:/.test(line));
    expect(errors).toEqual([expect.stringMatching(/^Claude Code: Invalid API key/), expect.stringMatching(/^To fix: .*\/login/)]);
  });

  it('--max-cost 0.05 at 0.02 per loop stops after the third loop with exit 3', async () => {
    const p = setup({ calls: [{ ...work(1), costUsd: 0.02 }, { ...work(2), costUsd: 0.02 }, { ...work(3), costUsd: 0.02 }, work(4)] });
    const result = await p.run({ MAX_COST_USD: 0.05 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(3);
    expect(p.status()).toMatchObject({ exit_reason: 'cost_budget_exhausted', status: 'stopped' });
    expect(p.status()!.run_cost_usd).toBeCloseTo(0.06, 6);
  });

  it('an agent that zeroes .run_state every loop still stops at --max-cost: the spend is held, not read back', async () => {
    const forged = JSON.stringify(newRunSpend(Date.parse('2026-11-30T00:00:00Z')));
    const costly = (n: number) => ({ ...work(n), costUsd: 0.02, writeFiles: { [`f${n}.txt`]: String(n), '.ralph/.run_state': forged } });
    const p = setup({ calls: [costly(1), costly(2), costly(3), costly(4), work(5)] });
    const result = await p.run({ MAX_COST_USD: 0.05 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(3);
    expect(p.status()).toMatchObject({ exit_reason: 'cost_budget_exhausted' });
  });

  it('MAX_TOKENS_PER_HOUR stops the run with exit 3 naming the budget', async () => {
    const usage = { input_tokens: 600, output_tokens: 100 };
    const p = setup({ calls: [{ ...work(1), usage }, { ...work(2), usage }, work(3)] });
    const result = await p.run({ MAX_TOKENS_PER_HOUR: 1000 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(2);
    expect(p.status()).toMatchObject({ exit_reason: 'token_budget_exhausted' });
    expect(result.logs.join('\n')).toContain('MAX_TOKENS_PER_HOUR=1000');
  });

  it('a maximum run time stops the run with exit 3', async () => {
    const clock = fakeClock();
    const p = setup({ calls: [work(1), work(2)] }, { clock });
    const { events } = agentStarts(clock);
    events.on('agent:finished', () => clock.advance(40 * 60_000));
    const result = await p.run({ MAX_RUN_MINUTES: 60 }, { events });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(2);
    expect(p.status()).toMatchObject({ exit_reason: 'max_run_time_reached' });
  });

  it('the run time counts across a restart, the time ralph was not running does not', async () => {
    const clock = fakeClock();
    const p = setup({ calls: [work(1), work(2), work(3), work(4)] }, { clock });
    const first = new LoopEvents();
    first.on('agent:finished', () => {
      clock.advance(40 * 60_000);
      p.signals.emit('SIGTERM', 'SIGTERM');
    });
    expect((await p.run({ MAX_RUN_MINUTES: 60 }, { events: first })).exitCode).toBe(143);
    clock.advance(10 * 60 * 60_000);

    const { events } = agentStarts(clock);
    events.on('agent:finished', () => clock.advance(40 * 60_000));
    const result = await p.run({ MAX_RUN_MINUTES: 60 }, { events });
    expect(result.exitCode).toBe(3);
    // 40 minutes before the restart and 40 after: one call after the restart, not two.
    expect(p.fake.runs()).toHaveLength(2);
    expect(p.status()).toMatchObject({ exit_reason: 'max_run_time_reached' });
    expect(result.logs.join('\n')).toContain('running for 80 min, maximum run time is 60 min');
  });

  it('a denied rm -rf build halts with exit 2 and prints the ALLOWED_TOOLS line to add', async () => {
    const p = setup({
      calls: [
        { steps: [{ tool: 'Bash', input: { command: 'rm -rf build', description: 'Clean' } }, { text: 'Tried to clean.' }], writeFiles: { 'a.txt': 'a' } },
      ],
    });
    const result = await p.run();
    expect(result.exitCode).toBe(2);
    expect(p.fake.runs()).toHaveLength(1);
    expect(p.status()).toMatchObject({ exit_reason: 'permission_denied', status: 'halted' });
    // The narrowest rule that allows the denied call, and what a wider one would allow.
    expect(result.stderr.text).toMatch(/ALLOWED_TOOLS="[^"]*Bash\(rm -rf build\)"/);
    expect(result.stderr.text).toContain('Bash(rm *) would also allow rm with any other arguments');
  });

  it('a denied compound npm command with Bash(npm *) allowed does not halt (#243)', async () => {
    const compound = {
      steps: [{ tool: 'Bash', input: { command: 'npm test 2>&1 | tail -5', description: 'Test' }, deny: true }, { text: 'Ran tests.' }],
      writeFiles: { 'a.txt': 'a' },
      statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
    };
    const p = setup({ calls: [compound, { ...compound, writeFiles: { 'b.txt': 'b' } }] });
    const result = await p.run({ MAX_LOOPS: 2, ALLOWED_TOOLS: 'Read,Write,Edit,Bash(npm *)' });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(2);
    const analysis = p.readJson('.ralph/.response_analysis') as { analysis: Record<string, unknown> };
    expect(analysis.analysis).toMatchObject({ has_permission_denials: false, has_compound_command_limitation: true });
    expect(result.logs.join('\n')).toContain('compound command');
  });
});
