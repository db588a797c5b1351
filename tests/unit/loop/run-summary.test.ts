import { describe, expect, it } from 'vitest';
import { formatRunOutcome } from '../../../lib/monitor/run-outcome.js';
import { formatRunTime, nextCommand, summarizeRun, type RunSummaryFacts } from '../../../lib/loop/run-summary.js';

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

describe('the exit code in words', () => {
  // One wording for the run summary and for what ralph --monitor prints once its session has
  // closed: a signal is named (the summary used to say only "interrupted", and "ended" for an
  // unknown code, where the monitor said "interrupted (Ctrl-C)" and "ended unexpectedly").
  const cases: Array<[number, string]> = [
    [0, 'done'],
    [1, 'could not run'],
    [2, 'halted by a guard'],
    [3, 'stopped at a limit'],
    [129, 'interrupted (SIGHUP)'],
    [130, 'interrupted (Ctrl-C)'],
    [131, 'interrupted (SIGQUIT)'],
    [143, 'interrupted (SIGTERM)'],
    [137, 'interrupted (signal 9)'],
    [4, 'ended unexpectedly'],
  ];
  it.each(cases)('exit code %i is "%s" in the summary and in the monitor', (exitCode, words) => {
    expect(summarizeRun({ ...done, exitCode }).outcome).toBe(words);
    expect(summarizeRun({ ...done, exitCode }).lines[1]).toBe(`  Stopped:  ${words} (exit reason: plan_complete, exit code ${exitCode})`);
    expect(formatRunOutcome({ exitCode, lastLines: [] }, 'x')).toBe(`ralph --monitor: the run ended with exit code ${exitCode} (${words}); x\n`);
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

  it('never names a git command in a folder that is not a git repository', () => {
    // A run in a plain folder ends with commits: null; `git status` there only fails.
    expect(nextCommand({ ...done, commits: 0 })).toBe('git status (review the changes; add tasks to fix_plan.md for another run)');
    expect(nextCommand({ ...done, commits: null })).toBe(
      'review the changed files (no git here: git init to track them); add tasks to fix_plan.md for another run',
    );
  });
});

describe('formatRunTime', () => {
  it('reads as hours, minutes and seconds', () => {
    expect([formatRunTime(7_000), formatRunTime(245_000), formatRunTime(3_723_000)]).toEqual(['7s', '4m 05s', '1h 02m 03s']);
  });
});
