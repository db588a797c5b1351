import { describe, expect, it } from 'vitest';
import { cutOffRunningAttempts, finishAttempt, forgetLoggedAttempts, nextLoopNumber, startAttempt } from '../../../lib/run-record/attempts.js';
import { runRecordSchema } from '../../../lib/run-record/record-schema.js';
import { newRecord, T0 } from './record-fixture.js';

describe('attempts', () => {
  it('starting the first attempt activates a pending run', () => {
    const record = startAttempt(newRecord(), 1, T0 + 5);
    expect(record.status).toBe('active');
    expect(record.attempts).toEqual([
      expect.objectContaining({ loop: 1, state: 'running', started_at: '2026-11-30T03:10:00.005Z', ended_at: null, outcome: null }),
    ]);
    expect(runRecordSchema.safeParse(record).success).toBe(true);
  });

  it('finishing records outcome, agent result and session, tokens, cost, files and duration', () => {
    const files = Array.from({ length: 130 }, (_, i) => `src/f${i}.ts`);
    const record = finishAttempt(startAttempt(newRecord(), 1, T0), {
      loop: 1,
      now: T0 + 61_500,
      action: '\n  Fixed the sum function\nand more detail',
      outcome: 'improving',
      agentResult: 'ok',
      agentSessionId: 'sess-1',
      agent: 'codex',
      tokens: { input: 1200, output: 300.7, cache_read: -1 },
      costUsd: 0.42,
      filesChanged: files,
    });
    expect(record.attempts[0]).toEqual({
      loop: 1,
      state: 'finished',
      started_at: '2026-11-30T03:10:00.000Z',
      ended_at: '2026-11-30T03:11:01.500Z',
      duration_ms: 61_500,
      action: 'Fixed the sum function',
      outcome: 'improving',
      agent_result: 'ok',
      agent_session_id: 'sess-1',
      agent: 'codex',
      tokens: { input: 1200, output: 300, cache_read: 0, cache_creation: 0 },
      cost_usd: 0.42,
      files_changed: files.slice(0, 100),
      files_changed_count: 130,
    });
    expect(runRecordSchema.safeParse(record).success).toBe(true);
  });

  it('refuses a second running attempt and finishing one that is not running', () => {
    const running = startAttempt(newRecord(), 1, T0);
    expect(() => startAttempt(running, 2, T0)).toThrow(expect.objectContaining({ code: 'attempt-running' }));
    expect(() => finishAttempt(running, { loop: 2, now: T0, outcome: 'stuck', agentResult: 'ok' })).toThrow(
      expect.objectContaining({ code: 'no-such-attempt' }),
    );
  });

  it('marks running attempts cut off and continues after the last finished one', () => {
    let record = newRecord();
    for (const loop of [1, 2]) {
      record = finishAttempt(startAttempt(record, loop, T0), { loop, now: T0 + 1, outcome: 'stuck', agentResult: 'ok' });
    }
    record = startAttempt(record, 3, T0 + 2);
    const { record: cut, cutOff } = cutOffRunningAttempts(record, T0 + 3);
    expect(cutOff).toEqual([3]);
    expect(cut.attempts.map((a) => [a.loop, a.state])).toEqual([
      [1, 'finished'],
      [2, 'finished'],
      [3, 'cut-off'],
    ]);
    expect(cut.attempts[2]!.action).toBe('agent call (cut off)');
    expect(nextLoopNumber(cut)).toBe(3);
    expect(nextLoopNumber(newRecord())).toBe(1);
    expect(cutOffRunningAttempts(cut, T0).record).toBe(cut);
  });
  it('forgets only attempts the log holds, beyond the newest ones kept, and keeps their count', () => {
    let record = newRecord();
    for (let loop = 1; loop <= 6; loop++)
      record = finishAttempt(startAttempt(record, loop, T0), { loop, now: T0 + 1, outcome: 'unverified', agentResult: 'ok' });
    const once = forgetLoggedAttempts(record, 4, 1);
    // Attempts 5 and 6 are not logged yet: they stay whatever `keep` says.
    expect(once.attempts.map((a) => a.loop)).toEqual([5, 6]);
    expect(once.attempts_dropped).toBe(4);
    const twice = forgetLoggedAttempts(once, 6, 1);
    expect(twice.attempts.map((a) => a.loop)).toEqual([6]);
    expect(twice.attempts_dropped).toBe(5);
    expect(forgetLoggedAttempts(twice, 6, 3)).toBe(twice);
    expect(runRecordSchema.safeParse(twice).success).toBe(true);
  });
});
