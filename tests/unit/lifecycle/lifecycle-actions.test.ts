import { describe, expect, it } from 'vitest';
import { decidePrBranch, planCompletionActions, shouldPostProgress, type LifecycleSettings } from '../../../lib/lifecycle/lifecycle-actions.js';

const ALL: LifecycleSettings = {
  commentProgress: true,
  commentInterval: 5,
  closeSummary: true,
  createPr: true,
  createFollowups: true,
  autoClose: true,
  labels: ['done'],
};
const NONE: LifecycleSettings = { ...ALL, commentProgress: false, closeSummary: false, createPr: false, createFollowups: false, autoClose: false, labels: [] };

describe('shouldPostProgress', () => {
  it('posts on every COMMENT_INTERVAL-th loop, only when asked', () => {
    const due = [1, 2, 3, 4, 5, 6, 9, 10, 11].filter((loop) => shouldPostProgress(ALL, loop));
    expect(due).toEqual([5, 10]);
    expect(shouldPostProgress({ ...ALL, commentInterval: 1 }, 3)).toBe(true);
    expect(shouldPostProgress(NONE, 5)).toBe(false);
  });
});

describe('planCompletionActions', () => {
  it('on a graceful completion: summary, pull request, follow-up, labels, close, in that order', () => {
    expect(planCompletionActions(ALL, 'graceful_exit')).toEqual(['summary', 'pull-request', 'follow-up', 'labels', 'close']);
  });

  it('nothing on a halt, a limit, an interrupt or a finished dry run', () => {
    for (const lastAction of [
      'circuit_breaker_open',
      'budget_reached',
      'interrupted',
      'permission_denied',
      'completion_conflict',
      'dry_run',
      'api_limit_exit',
    ]) {
      expect(planCompletionActions(ALL, lastAction), lastAction).toEqual([]);
    }
  });

  it('labels only with --auto-close (as the Bash tool), and only when there are some', () => {
    expect(planCompletionActions({ ...NONE, labels: ['done'] }, 'graceful_exit')).toEqual([]);
    expect(planCompletionActions({ ...NONE, autoClose: true }, 'graceful_exit')).toEqual(['close']);
    expect(planCompletionActions(NONE, 'graceful_exit')).toEqual([]);
  });
});

describe('decidePrBranch', () => {
  it('refuses a detached HEAD, the default branch, main and master', () => {
    expect(decidePrBranch(undefined, 'main')).toEqual({ ok: false, reason: 'HEAD is detached' });
    expect(decidePrBranch('HEAD', undefined).ok).toBe(false);
    expect(decidePrBranch('trunk', 'trunk')).toEqual({ ok: false, reason: "'trunk' is the default branch" });
    expect(decidePrBranch('main', 'trunk').ok).toBe(false);
    expect(decidePrBranch('master', undefined).ok).toBe(false);
  });

  it('takes a feature branch', () => {
    expect(decidePrBranch('ralph/issue-42', 'main')).toEqual({ ok: true, branch: 'ralph/issue-42' });
  });

  it('takes the branch the run started on, and a branch new to origin', () => {
    expect(decidePrBranch('feature/x', 'main', { branch: 'feature/x', onOrigin: false })).toEqual({ ok: true, branch: 'feature/x' });
    expect(decidePrBranch('feature/y', 'main', { branch: 'main', onOrigin: false })).toEqual({ ok: true, branch: 'feature/y' });
  });

  it('refuses a branch origin already has when the run started on another', () => {
    expect(decidePrBranch('release/v2', 'main', { branch: 'ralph/issue-42', onOrigin: true })).toEqual({
      ok: false,
      reason:
        "HEAD names 'release/v2', which origin already has, and the run started on 'ralph/issue-42': ralph pushes an existing branch only when the run started on it",
    });
    expect(decidePrBranch('release/v2', 'main', { branch: undefined, onOrigin: true }).ok).toBe(false);
  });
});
