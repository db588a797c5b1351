// How a fleet job ends, from how its loop ended: the chain of jobs continues only after the
// job's own time budget cut the loop, and stops at its last job with a reason for the issue.

import { describe, expect, it } from 'vitest';
import { decideJobOutcome, describeHalt, MAX_JOBS } from '../../../lib/fleet/job-outcome.js';
import { decideIssueState } from '../../../lib/fleet/issue-state.js';

describe('decideJobOutcome', () => {
  it.each([
    [{ exitCode: 0, cutByJobBudget: false, jobNumber: 1 }, { kind: 'done' }],
    [{ exitCode: 143, cutByJobBudget: true, jobNumber: 1 }, { kind: 'continue' }],
    [{ exitCode: 143, cutByJobBudget: true, jobNumber: MAX_JOBS - 1 }, { kind: 'continue' }],
    [
      { exitCode: 143, cutByJobBudget: true, jobNumber: MAX_JOBS },
      { kind: 'needs-help', why: `the run used all ${MAX_JOBS} jobs it may take` },
    ],
    [{ exitCode: 143, cutByJobBudget: false, jobNumber: 1 }, { kind: 'stopped' }],
    [{ exitCode: 130, cutByJobBudget: false, jobNumber: 2 }, { kind: 'stopped' }],
    [{ exitCode: 3, cutByJobBudget: false, jobNumber: 2 }, { kind: 'needs-help' }],
    [{ exitCode: 2, cutByJobBudget: false, jobNumber: 1 }, { kind: 'needs-help' }],
    // The budget fired as the loop stopped at a limit of its own: the limit decides.
    [{ exitCode: 3, cutByJobBudget: true, jobNumber: 1 }, { kind: 'needs-help' }],
  ])('%j → %j', (input, expected) => {
    expect(decideJobOutcome({ ...input, maxJobs: MAX_JOBS })).toEqual(expected);
  });

  it('describes a halt by its kind and the loop’s exit reason', () => {
    expect(describeHalt(3, 'cost_budget_reached')).toBe('stopped at a limit (cost_budget_reached)');
    expect(describeHalt(2, '')).toBe('halted by a guard (exit 2)');
    // The words of the run summary (errors.ts describeExitCode): a signal is named, not "could not run".
    expect(describeHalt(131, '')).toBe('interrupted (SIGQUIT) (exit 131)');
    expect(describeHalt(1, 'x')).toBe('could not run (x)');
  });
});

describe('decideIssueState', () => {
  const base = { labels: ['ralph'], runs: [], hasPullRequest: false, doneLabel: 'ralph-done', helpLabel: 'ralph-needs-help' };
  it.each([
    [{}, 'queued'],
    [{ labels: ['ralph', 'ralph-done'] }, 'done'],
    [{ hasPullRequest: true }, 'done'],
    [{ labels: ['ralph', 'ralph-needs-help'] }, 'needs help'],
    [{ runs: [{ status: 'in_progress', conclusion: '' }] }, 'running'],
    [{ runs: [{ status: 'queued', conclusion: '' }] }, 'queued'],
    [
      {
        runs: [
          { status: 'in_progress', conclusion: '' },
          { status: 'completed', conclusion: 'success' },
        ],
      },
      'continuing',
    ],
    [
      {
        runs: [
          { status: 'queued', conclusion: '' },
          { status: 'completed', conclusion: 'success' },
        ],
      },
      'continuing',
    ],
    [{ runs: [{ status: 'completed', conclusion: 'failure' }] }, 'queued'],
  ])('%j → %s', (change, expected) => {
    expect(decideIssueState({ ...base, ...change })).toBe(expected);
  });
});
