import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findAgent } from '../../../lib/agents/registry.js';
import { defaultConfig } from '../../../lib/config/schema.js';
import { openBreakerForSameFailures } from '../../../lib/breaker/circuit-breaker.js';
import { resetRunSession } from '../../../lib/sessions/agent-session.js';
import { holdRunState, type Run, type RunStateSource } from '../../../lib/loop/run.js';
import type { SharedAccount } from '../../../lib/limits/shared-account.js';
import { AccountLedger } from '../../../lib/parallel/account.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { fakeClock } from '../../helpers/fake-clock.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const NOW = Date.parse('2026-11-30T04:10:00Z');

function project() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-run-state-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.ralph'));
  return ralphPaths(dir);
}

function source(paths = project(), account?: SharedAccount): RunStateSource {
  const claude = findAgent('claude')!;
  return {
    config: defaultConfig(),
    paths,
    readOptions: { logger: createMemoryLogger(), clock: fakeClock(NOW) },
    agents: [{ adapter: claude, command: 'claude' }],
    account,
  };
}

const breakerFile = (paths: ReturnType<typeof ralphPaths>) =>
  JSON.parse(readFileSync(paths.circuitBreakerState, 'utf8')) as { state: string; consecutive_no_progress: number };

describe('the run state, loaded once and held', () => {
  it('reads the breaker once: a file rewritten mid-run changes nothing the run holds, and its next write puts it back', () => {
    const from = source();
    const state = holdRunState(from);
    const held = state.breaker.value;
    writeFileSync(from.paths.circuitBreakerState, JSON.stringify({ ...held, state: 'CLOSED', consecutive_no_progress: 0, total_opens: 0 }));
    const opened = openBreakerForSameFailures(held, 'the same 2 tests fail', 3, NOW);
    state.breaker.hold(opened);
    expect(state.breaker.value.state).toBe('OPEN');
    expect(breakerFile(from.paths).state).toBe('OPEN');
    // A transition goes to the history too.
    expect(readFileSync(from.paths.circuitBreakerHistory, 'utf8')).toContain('the same 2 tests fail');
    // The same state held again is still written: the view the agent rewrote is put back.
    writeFileSync(from.paths.circuitBreakerState, JSON.stringify({ ...state.breaker.value, state: 'CLOSED' }));
    state.breaker.hold({ state: state.breaker.value });
    expect(breakerFile(from.paths).state).toBe('OPEN');
  });

  it("reads the breaker history once: entries written into the file mid-run are not merged back, the next transition puts the run's history back", () => {
    const from = source();
    const bashEntry = { timestamp: '2026-11-30T03:00:00+00:00', loop: 7, from_state: 'CLOSED', to_state: 'HALF_OPEN', reason: 'from an earlier run' };
    writeFileSync(from.paths.circuitBreakerHistory, JSON.stringify([bashEntry], null, 2));
    const state = holdRunState(from);
    state.breaker.hold(openBreakerForSameFailures(state.breaker.value, 'the same 2 tests fail', 3, NOW));
    // The agent rewrites the history while the run goes on.
    const forged = { ...bashEntry, reason: 'forged by the agent' };
    writeFileSync(from.paths.circuitBreakerHistory, JSON.stringify([forged, forged], null, 2));
    const transition = { from: 'OPEN' as const, to: 'CLOSED' as const, reason: 'recovered', loop: 4, timestamp: '2026-11-30T04:10:00+00:00' };
    state.breaker.hold({ state: { ...state.breaker.value, state: 'CLOSED' }, transition });
    const history = JSON.parse(readFileSync(from.paths.circuitBreakerHistory, 'utf8')) as Array<{ reason: string }>;
    expect(history.map((entry) => entry.reason)).toEqual(['from an earlier run', expect.stringContaining('the same 2 tests fail'), 'recovered']);
    expect(state.breaker.history.value).toEqual(history);
  });

  it('reads the session history once: a reset mid-run writes the held history, not what the file says now', () => {
    const from = source();
    const reset = (reason: string, loop: number) => ({
      timestamp: '2026-11-30T03:00:00+00:00',
      from_state: 'active',
      to_state: 'reset',
      reason,
      loop_number: loop,
    });
    writeFileSync(from.paths.ralphSessionHistory, JSON.stringify([reset('manual_reset_flag', 0)], null, 2));
    const state = holdRunState(from);
    const run = { state, paths: from.paths, readOptions: from.readOptions } as unknown as Run;
    resetRunSession(run, 'circuit_breaker_trip', 2);
    writeFileSync(from.paths.ralphSessionHistory, JSON.stringify([reset('forged', 9)], null, 2));
    resetRunSession(run, 'project_complete', 3, { keepAnalysis: true });
    const history = JSON.parse(readFileSync(from.paths.ralphSessionHistory, 'utf8')) as Array<{ reason: string; loop_number: number }>;
    expect(history.map((entry) => [entry.reason, entry.loop_number])).toEqual([
      ['manual_reset_flag', 0],
      ['circuit_breaker_trip', 2],
      ['project_complete', 3],
    ]);
  });

  it('holds a usage-limit wait: saved when set, its file removed when forgotten', () => {
    const from = source();
    const state = holdRunState(from);
    expect(state.usageWait.value).toBeUndefined();
    const wait = {
      resume_at: '2026-11-30T05:00:00Z',
      resume_at_ms: Date.parse('2026-11-30T05:00:00Z'),
      reason: 'limit',
      source: 'stated',
      detected_at: '2026-11-30T04:10:00Z',
    };
    state.usageWait.set(wait);
    expect(JSON.parse(readFileSync(from.paths.usageLimitWait, 'utf8'))).toEqual(wait);
    state.usageWait.set(undefined);
    expect(existsSync(from.paths.usageLimitWait)).toBe(false);
  });

  it('lets two runs live in one process: each with its own state, sharing the account window', () => {
    const accountPaths = project();
    const account = new AccountLedger(accountPaths, defaultConfig(), { logger: createMemoryLogger(), clock: fakeClock(NOW) });
    const first = holdRunState(source(project(), account.forUnit('unit-1')));
    const second = holdRunState(source(project(), account.forUnit('unit-2')));
    expect(first.rate).toBe(account.rate);
    expect(second.rate).toBe(account.rate);
    expect(first.breaker).not.toBe(second.breaker);
    first.loopCount = 4;
    first.breaker.hold(openBreakerForSameFailures(first.breaker.value, 'the same test fails', 4, NOW));
    expect(second.loopCount).toBe(0);
    expect(second.breaker.value.state).toBe('CLOSED');
  });
});
