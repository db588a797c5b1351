import { describe, expect, it } from 'vitest';
import { formatDuration, nextCommand, summarizeRun, type RunSummaryFacts } from '../../../lib/loop/run-summary.js';

const done: RunSummaryFacts = {
  exitCode: 0,
  exitReason: 'plan_complete',
  loopsRun: 2,
  plan: { done: 2, open: 0 },
  costUsd: 0.5,
  unknownCostCalls: 0,
  elapsedMs: 65_000,
  commits: 2,
};

describe('summarizeRun', () => {
  it('says what the run did, in one block', () => {
    expect(summarizeRun(done).lines).toEqual([
      'Run summary',
      '  Stopped:  done (exit reason: plan_complete, exit code 0)',
      '  Tasks:    2 done, 0 left',
      '  Loops:    2',
      '  Cost:     $0.50',
      '  Time:     1m 05s',
      '  Commits:  2',
      "  Next:     git log --oneline -2 (review the run's commits)",
    ]);
  });

  it('names the resumed run, calls of unknown cost, ticks without evidence and a folder without git', () => {
    const lines = summarizeRun({ ...done, run: { id: 'r1', loops: 5 }, unknownCostCalls: 1, ticksWithoutEvidence: 1, commits: null }).lines;
    expect(lines).toContain('  Loops:    2 (5 in run r1, resumed)');
    expect(lines).toContain('  Cost:     $0.50 (+ 1 call(s) of unknown cost)');
    expect(lines).toContain('  Tasks:    2 done (1 ticked without evidence), 0 left');
    expect(lines).toContain('  Commits:  none (not a git repository)');
  });
});

describe('nextCommand', () => {
  it('gives the command for each way a run ends', () => {
    expect(nextCommand({ ...done, plan: { done: 1, open: 1 } })).toBe('ralph (1 task(s) are still open in fix_plan.md)');
    expect(nextCommand({ ...done, exitCode: 2, exitReason: 'stagnation_detected' })).toMatch(/^ralph --circuit-status/);
    expect(nextCommand({ ...done, exitCode: 3, exitReason: 'max_loops' })).toMatch(/^ralph \(a new run/);
    expect(nextCommand({ ...done, exitCode: 130, exitReason: 'interrupted' })).toBe('ralph (resumes the run)');
    expect(nextCommand({ ...done, dryRun: true })).toBe('ralph (the same run, calling the agent)');
  });
});

describe('formatDuration', () => {
  it('reads as hours, minutes and seconds', () => {
    expect([formatDuration(7_000), formatDuration(245_000), formatDuration(3_723_000)]).toEqual(['7s', '4m 05s', '1h 02m 03s']);
  });
});
