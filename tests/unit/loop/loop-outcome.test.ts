import { describe, expect, it } from 'vitest';
import { measureLoopOutcome } from '../../../lib/loop/loop-outcome.js';

const ok = { agentOutcome: 'ok', agentTestsStatus: 'PASSING', gate: null, halted: false } as const;

describe('measureLoopOutcome', () => {
  it('without a gate, the agent call decides and its TESTS_STATUS is kept as its claim', () => {
    expect(measureLoopOutcome(ok)).toEqual({ success: true, outcome: 'ok', tests_status: 'PASSING', tests_source: 'agent' });
    expect(measureLoopOutcome({ ...ok, agentTestsStatus: null })).toMatchObject({ tests_status: null, tests_source: null });
  });

  it('a failing or erroring gate makes a successful agent call an unsuccessful loop, whatever the agent claims', () => {
    expect(measureLoopOutcome({ ...ok, gate: 'failed' })).toEqual({
      success: false,
      outcome: 'verification_failed',
      tests_status: 'FAILING',
      tests_source: 'gate',
    });
    expect(measureLoopOutcome({ ...ok, gate: 'error' })).toMatchObject({ success: false, outcome: 'verification_error', tests_status: 'ERROR' });
    expect(measureLoopOutcome({ ...ok, gate: 'not-verified' })).toEqual({
      success: false,
      outcome: 'not_verified',
      tests_status: 'NOT_VERIFIED',
      tests_source: 'gate',
    });
    expect(measureLoopOutcome({ ...ok, agentTestsStatus: 'FAILING', gate: 'passed' })).toEqual({
      success: true,
      outcome: 'ok',
      tests_status: 'PASSING',
      tests_source: 'gate',
    });
  });

  it('a halt is the outcome; a failed agent call stays the outcome when the gate fails too', () => {
    expect(measureLoopOutcome({ ...ok, gate: 'failed', halted: true })).toMatchObject({ success: false, outcome: 'halted' });
    expect(measureLoopOutcome({ ...ok, halted: true })).toMatchObject({ success: false, outcome: 'halted' });
    expect(measureLoopOutcome({ ...ok, agentOutcome: 'failed', gate: 'failed' })).toMatchObject({ success: false, outcome: 'failed', tests_status: 'FAILING' });
    expect(measureLoopOutcome({ ...ok, agentOutcome: 'timed_out_productive', gate: 'failed' })).toMatchObject({
      success: false,
      outcome: 'verification_failed',
    });
  });
});
