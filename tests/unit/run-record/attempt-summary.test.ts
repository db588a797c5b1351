import { describe, expect, it } from 'vitest';
import { finishAttempt, startAttempt, cutOffRunningAttempts } from '../../../lib/run-record/attempts.js';
import { summarizeAttemptsForContext } from '../../../lib/run-record/attempt-summary.js';
import { gapSample, recordGap } from '../../../lib/run-record/gap.js';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';
import { newRecord, T0 } from './record-fixture.js';

function withAttempts(n: number): RunRecord {
  let record = newRecord();
  for (let loop = 1; loop <= n; loop++) {
    record = finishAttempt(startAttempt(record, loop, T0), {
      loop,
      now: T0 + 1,
      action: `Tried approach number ${loop} on the parser`,
      outcome: loop % 2 ? 'improving' : 'stuck',
      agentResult: loop === 2 ? 'timeout' : 'ok',
      filesChanged: loop === 1 ? ['a.ts'] : ['a.ts', 'b.ts'],
    });
  }
  return record;
}

describe('summarizeAttemptsForContext', () => {
  it('lists each attempt, a cut-off one, and the gap', () => {
    let record = startAttempt(withAttempts(2), 3, T0);
    record = cutOffRunningAttempts(record, T0).record;
    record = recordGap(recordGap(record, gapSample(1, 3, 1), T0), gapSample(2, 2, 1), T0);
    expect(summarizeAttemptsForContext(record, 2000)).toBe(
      [
        'Earlier attempts in this run (20261130T031000Z-abc123), oldest first:',
        '- Loop 1: improving, 1 file changed — Tried approach number 1 on the parser',
        '- Loop 2: stuck, agent timeout, 2 files changed — Tried approach number 2 on the parser',
        '- Loop 3: cut off (ralph stopped during this loop); it runs again',
        'Distance to goal: gap 3 (2 open items + 1 failing test) ↓ improving.',
      ].join('\n'),
    );
  });

  it('keeps the newest attempts within the budget and says how many are hidden', () => {
    const text = summarizeAttemptsForContext(withAttempts(40), 600);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text).toContain('- Loop 40:');
    expect(text).not.toContain('- Loop 1:');
    expect(text).toMatch(/- … \d+ earlier attempts not shown/);
  });

  it('is empty for a run without attempts', () => {
    expect(summarizeAttemptsForContext(newRecord(), 1000)).toBe('');
  });
});
