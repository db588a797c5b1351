import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  applyStartupRecovery,
  cooldownEndsAt,
  errorSignatureOf,
  initialBreakerState,
  nextBreakerState,
  resetBreaker,
  shouldHalt,
  toHistoryEntry,
  type BreakerHistoryEntry,
  type BreakerObservation,
  type BreakerState,
} from '../../../lib/breaker/circuit-breaker.js';
import { defaultConfig } from '../../../lib/config/schema.js';
import { formatIsoTimestamp } from '../../../lib/state/timestamps.js';
import { breakerThresholds } from '../../../lib/breaker/breaker-step.js';

/** The thresholds of the default configuration. */
const T = breakerThresholds(defaultConfig());

const T0 = Date.parse('2026-11-30T04:47:39Z');
const MIN = 60_000;
const halted = new URL('../../fixtures/bash-state/halted/', import.meta.url);

function obs(loop: number, over: Partial<BreakerObservation> = {}): BreakerObservation {
  return {
    loop,
    progress: false,
    askingQuestions: false,
    hasPermissionDenials: false,
    errorSignature: null,
    failed: false,
    ...over,
  };
}

/** Feed observations one loop (20 s) apart; collect the history entries the loop would append. */
function run(start: BreakerState, observations: BreakerObservation[], thresholds = T) {
  let state = start;
  let history: BreakerHistoryEntry[] = [];
  observations.forEach((o, i) => {
    const r = nextBreakerState(state, o, thresholds, T0 + i * 20_000);
    state = r.state;
    if (r.transition) history = [...history, toHistoryEntry(r.transition)];
  });
  return { state, history };
}

function openedAgo(minutes: number): { state: BreakerState; now: number } {
  const { state } = run(initialBreakerState(T0), [obs(1), obs(2), obs(3)]);
  const openedAt = Date.parse(state.opened_at!);
  return { state, now: openedAt + minutes * MIN };
}

describe('nextBreakerState: no progress', () => {
  it('opens after three loops without progress: CLOSED→HALF_OPEN→OPEN, as the Bash tool recorded it', () => {
    const { state, history } = run(initialBreakerState(T0), [obs(1), obs(2), obs(3)]);
    const bashState = JSON.parse(readFileSync(new URL('.circuit_breaker_state', halted), 'utf8'));
    const bashHistory = JSON.parse(readFileSync(new URL('.circuit_breaker_history', halted), 'utf8'));
    const strip = (s: Record<string, unknown>) => {
      const { last_change: _a, opened_at: _b, last_error_signature: _c, ...rest } = s;
      return rest;
    };
    expect(strip({ ...state })).toEqual(strip(bashState));
    expect(history.map(({ timestamp: _t, ...e }) => e)).toEqual(bashHistory.map(({ timestamp: _t, ...e }: BreakerHistoryEntry) => e));
    expect(shouldHalt(state)).toBe(true);
    expect(state.opened_at).toBe(formatIsoTimestamp(T0 + 40_000));
  });

  it('stays CLOSED for one loop without progress and resets the count on progress', () => {
    const { state, history } = run(initialBreakerState(T0), [obs(1), obs(2, { progress: true }), obs(3)]);
    expect(state.state).toBe('CLOSED');
    expect(state.consecutive_no_progress).toBe(1);
    expect(state.last_progress_loop).toBe(2);
    expect(history).toEqual([]);
  });

  it('counts only measured new content as progress', () => {
    const { state } = run(initialBreakerState(T0), [obs(1), obs(2, { progress: true })]);
    expect(state.consecutive_no_progress).toBe(0);
    expect(state.last_progress_loop).toBe(2);
  });

  it('holds the count for one loop of questions per stall, but not when the run failed', () => {
    const asking = run(initialBreakerState(T0), [obs(1), obs(2, { askingQuestions: true })]).state;
    expect(asking).toMatchObject({ consecutive_no_progress: 1, question_hold_used: true });
    const failed = run(initialBreakerState(T0), [obs(1), obs(2, { askingQuestions: true, failed: true })]).state;
    expect(failed.consecutive_no_progress).toBe(2);
  });

  it('opens on an agent that asks questions every loop, one loop later than the threshold', () => {
    const q = { askingQuestions: true };
    const { state, history } = run(initialBreakerState(T0), [obs(1, q), obs(2, q), obs(3, q), obs(4, q)]);
    expect(history.map((h) => [h.loop, h.to_state])).toEqual([
      [3, 'HALF_OPEN'],
      [4, 'OPEN'],
    ]);
    expect(state.consecutive_no_progress).toBe(3);
  });

  it('gives questions their one hold again after progress', () => {
    const q = { askingQuestions: true };
    const { state } = run(initialBreakerState(T0), [obs(1, q), obs(2, { progress: true }), obs(3, q), obs(4, q)]);
    expect(state).toMatchObject({ consecutive_no_progress: 1, state: 'CLOSED' });
  });

  it('carries the content memory through every transition', () => {
    const seen = { run: 'r1', seen: ['a'.repeat(40)] };
    const { state } = run({ ...initialBreakerState(T0), seen_content: seen }, [obs(1), obs(2), obs(3)]);
    expect(state.seen_content).toEqual(seen);
  });

  it('feeds failed runs and timeouts without progress (Bash did not)', () => {
    const f = { failed: true, errorSignature: 'agent exited with code <n>' };
    const { state, history } = run(initialBreakerState(T0), [obs(1, f), obs(2, f), obs(3, f)]);
    expect(state.state).toBe('OPEN');
    expect(history.map((h) => h.to_state)).toEqual(['HALF_OPEN', 'OPEN']);
  });

  it('honours a higher threshold, still monitoring from the second loop like Bash', () => {
    const t = { ...T, noProgress: 5 };
    const { state, history } = run(
      initialBreakerState(T0),
      [1, 2, 3, 4, 5].map((n) => obs(n)),
      t,
    );
    expect(history.map((h) => [h.loop, h.to_state])).toEqual([
      [2, 'HALF_OPEN'],
      [5, 'OPEN'],
    ]);
    expect(state.reason).toBe('No recovery, opening circuit after 5 loops');
  });
});

describe('nextBreakerState: same error', () => {
  const progressing = (loop: number, sig: string | null) => obs(loop, { progress: true, errorSignature: sig });

  it('opens when the same signature repeats in five consecutive loops', () => {
    const { state, history } = run(
      initialBreakerState(T0),
      [1, 2, 3, 4, 5].map((n) => progressing(n, 'tsc: error <n>')),
    );
    expect(state.state).toBe('OPEN');
    expect(state.consecutive_same_error).toBe(5);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ loop: 5, from_state: 'CLOSED', to_state: 'OPEN', reason: 'Same error repeated in 5 consecutive loops' });
  });

  it('does not open on five different errors', () => {
    const { state } = run(
      initialBreakerState(T0),
      ['a', 'b', 'c', 'd', 'e'].map((s, i) => progressing(i + 1, s)),
    );
    expect(state.state).toBe('CLOSED');
    expect(state.consecutive_same_error).toBe(1);
    expect(state.last_error_signature).toBe('e');
  });

  it('restarts the count after a loop without error', () => {
    const sigs = ['x', 'x', null, 'x', 'x', 'x', 'x'];
    const { state } = run(
      initialBreakerState(T0),
      sigs.map((s, i) => progressing(i + 1, s)),
    );
    expect(state.state).toBe('CLOSED');
    expect(state.consecutive_same_error).toBe(4);
  });

  it('a loop that completed a plan item restarts the count: an error quoted while items get done is not the one the agent is stuck on', () => {
    const loops = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => obs(n, { progress: true, errorSignature: 'x', planProgress: n % 3 === 0 }));
    const { state } = run(initialBreakerState(T0), loops);
    expect(state.state).toBe('CLOSED');
    expect(state.consecutive_same_error).toBe(2);
  });

  it('also opens from HALF_OPEN on a repeated error', () => {
    const start: BreakerState = { ...initialBreakerState(T0), state: 'HALF_OPEN', consecutive_same_error: 4, last_error_signature: 'x' };
    const r = nextBreakerState(start, obs(9, { askingQuestions: true, errorSignature: 'x' }), T, T0);
    expect(r.state.state).toBe('OPEN');
    expect(r.transition?.reason).toBe('Same error repeated in 5 consecutive loops');
  });
});

describe('nextBreakerState: permission denials, HALF_OPEN and OPEN', () => {
  it('opens after two loops with permission denials, with the Bash reason', () => {
    const d = { hasPermissionDenials: true, progress: true };
    const { state } = run(initialBreakerState(T0), [obs(1, d), obs(2, d)]);
    expect(state.state).toBe('OPEN');
    expect(state.reason).toBe('Permission denied in 2 consecutive loops - update ALLOWED_TOOLS in .ralphrc');
  });

  it('resets the denial count after a clean loop', () => {
    const d = { hasPermissionDenials: true, progress: true };
    const { state } = run(initialBreakerState(T0), [obs(1, d), obs(2, { progress: true }), obs(3, d)]);
    expect(state.state).toBe('CLOSED');
    expect(state.consecutive_permission_denials).toBe(1);
  });

  it('closes HALF_OPEN on progress', () => {
    const { state, history } = run(initialBreakerState(T0), [obs(1), obs(2), obs(3, { progress: true })]);
    expect(state.state).toBe('CLOSED');
    expect(history.at(-1)).toMatchObject({ from_state: 'HALF_OPEN', to_state: 'CLOSED', reason: 'Progress detected, circuit recovered', loop: 3 });
  });

  it('stays OPEN, keeping its reason, opened_at and total_opens', () => {
    const { state } = openedAgo(0);
    const r = nextBreakerState(state, obs(4, { progress: true }), T, T0 + 10 * MIN);
    expect(r.transition).toBeUndefined();
    expect(r.state).toMatchObject({ state: 'OPEN', reason: state.reason, opened_at: state.opened_at, total_opens: 1, current_loop: 4 });
  });
});

describe('applyStartupRecovery', () => {
  it('keeps a breaker opened 1 minute ago OPEN (the run halts without a call)', () => {
    const { state, now } = openedAgo(1);
    const r = applyStartupRecovery(state, T, now);
    expect(r.transition).toBeUndefined();
    expect(shouldHalt(r.state)).toBe(true);
  });

  it('moves a breaker opened 31 minutes ago to HALF_OPEN with counters kept, and progress closes it', () => {
    const { state, now } = openedAgo(31);
    const r = applyStartupRecovery(state, T, now);
    expect(r.state).toMatchObject({ state: 'HALF_OPEN', consecutive_no_progress: 3, total_opens: 1, reason: 'Cooldown recovery: 31m elapsed' });
    expect(r.state.opened_at).toBeUndefined();
    expect(r.transition).toMatchObject({ from: 'OPEN', to: 'HALF_OPEN', reason: 'Cooldown elapsed (31m >= 30m)', loop: 3 });
    expect(shouldHalt(r.state)).toBe(false);
    const next = nextBreakerState(r.state, obs(4, { progress: true }), T, now + MIN);
    expect(next.state.state).toBe('CLOSED');
    expect(next.transition?.reason).toBe('Progress detected, circuit recovered');
  });

  it('re-opens a recovered breaker at once when the next loop makes no progress', () => {
    const { state, now } = openedAgo(31);
    const half = applyStartupRecovery(state, T, now).state;
    const next = nextBreakerState(half, obs(4), T, now + MIN);
    expect(next.state).toMatchObject({ state: 'OPEN', total_opens: 2, reason: 'No recovery, opening circuit after 4 loops' });
  });

  it('auto-resets to CLOSED keeping total_opens', () => {
    const { state, now } = openedAgo(1);
    const r = applyStartupRecovery({ ...state, total_opens: 4 }, { ...T, autoReset: true }, now);
    expect(r.state).toMatchObject({ state: 'CLOSED', total_opens: 4, consecutive_no_progress: 0, reason: 'Auto-reset on startup' });
    expect(r.transition?.reason).toBe('Auto-reset on startup (CB_AUTO_RESET=true)');
  });

  it('stays OPEN when the clock is behind opened_at', () => {
    const { state, now } = openedAgo(-5);
    expect(applyStartupRecovery(state, T, now).state.state).toBe('OPEN');
  });

  it('recovers at once with CB_COOLDOWN_MINUTES=0', () => {
    const { state, now } = openedAgo(0);
    expect(applyStartupRecovery(state, { ...T, cooldownMinutes: 0 }, now).state.state).toBe('HALF_OPEN');
  });

  it('reads the Bash-written OPEN state and counts the cooldown from its opened_at', () => {
    const bash = JSON.parse(readFileSync(new URL('.circuit_breaker_state', halted), 'utf8')) as BreakerState;
    const openedAt = Date.parse(bash.opened_at!);
    expect(applyStartupRecovery(bash, T, openedAt + 29 * MIN).state.state).toBe('OPEN');
    expect(applyStartupRecovery(bash, T, openedAt + 30 * MIN).state.state).toBe('HALF_OPEN');
    const { opened_at: _o, ...withoutOpenedAt } = bash;
    expect(applyStartupRecovery(withoutOpenedAt, T, Date.parse(bash.last_change) + 30 * MIN).state.state).toBe('HALF_OPEN');
    expect(cooldownEndsAt(bash, T)).toBe(openedAt + 30 * MIN);
  });

  it('leaves CLOSED and HALF_OPEN alone', () => {
    const s = initialBreakerState(T0);
    expect(applyStartupRecovery(s, { ...T, autoReset: true }, T0 + 99 * MIN)).toEqual({ state: s });
  });
});

describe('resetBreaker, history, timestamps', () => {
  it('--reset-circuit zeroes every counter, total_opens and current_loop', () => {
    const s = resetBreaker('Manual reset via command line', T0);
    expect(s).toMatchObject({
      state: 'CLOSED',
      consecutive_no_progress: 0,
      consecutive_same_error: 0,
      consecutive_permission_denials: 0,
      last_progress_loop: 0,
      total_opens: 0,
      current_loop: 0,
      reason: 'Manual reset via command line',
    });
    expect(s.opened_at).toBeUndefined();
  });

  it('writes timestamps in the Bash form', () => {
    expect(formatIsoTimestamp(Date.parse('2026-11-30T04:48:19.734Z'))).toBe('2026-11-30T04:48:19+00:00');
  });
});

describe('errorSignatureOf', () => {
  it('gives the same signature to the same error with different numbers, ids and paths', () => {
    const a = errorSignatureOf('Error: test failed after 31s in /tmp/run-a1/test.ts (req_011CSHCYzB)');
    const b = errorSignatureOf('Error: test failed after 29s in /tmp/run-b7/test.ts (req_011CTrmdPs)\nstack…');
    expect(a).toBe(b);
  });

  it('tells different errors apart and has no signature for no error', () => {
    expect(errorSignatureOf('Invalid API key · Fix external API key')).not.toBe(errorSignatureOf('API Error: 500 Internal server error'));
    expect(errorSignatureOf('')).toBeNull();
    expect(errorSignatureOf(undefined)).toBeNull();
  });
});

describe('plan progress without new content', () => {
  it('a loop that completed a plan item with no new content (a revert) is progress', () => {
    const { state } = run(initialBreakerState(T0), [obs(1), obs(2), obs(3, { planProgress: true }), obs(4)]);
    expect(state).toMatchObject({ state: 'CLOSED', consecutive_no_progress: 1, last_progress_loop: 3 });
  });
});
