// Which GitHub lifecycle actions a run takes, from its settings and how it ended: a progress
// comment after a successful loop every COMMENT_INTERVAL loops, and on graceful completion only
// (never on a halt, a limit or an interrupt) the summary, the pull request, the follow-up issue,
// the labels and the close, in that order (the Bash tool's lifecycle_on_completion).

export interface LifecycleSettings {
  commentProgress: boolean;
  commentInterval: number;
  closeSummary: boolean;
  createPr: boolean;
  createFollowups: boolean;
  autoClose: boolean;
  labels: readonly string[];
}

export type CompletionAction = 'summary' | 'pull-request' | 'follow-up' | 'labels' | 'close';

export function shouldPostProgress(settings: LifecycleSettings, loop: number): boolean {
  return settings.commentProgress && settings.commentInterval > 0 && loop > 0 && loop % settings.commentInterval === 0;
}

/** How a run stopped, as far as the lifecycle cares: only `graceful_exit` is a completion. */
export function planCompletionActions(settings: LifecycleSettings, lastAction: string): CompletionAction[] {
  if (lastAction !== 'graceful_exit') return [];
  const actions: CompletionAction[] = [];
  if (settings.closeSummary) actions.push('summary');
  if (settings.createPr) actions.push('pull-request');
  if (settings.createFollowups) actions.push('follow-up');
  if (settings.autoClose && settings.labels.length > 0) actions.push('labels');
  if (settings.autoClose) actions.push('close');
  return actions;
}

export type PrBranchDecision = { ok: true; branch: string } | { ok: false; reason: string };

/** Where HEAD's branch stands against the run's start: the branch the run started on, and whether origin has HEAD's branch. */
export interface PrBranchStart {
  /** The branch HEAD named when the run started (undefined: detached, or not recorded). */
  branch: string | undefined;
  /** origin has a branch of HEAD's name (asked only when it is not the start branch). */
  onOrigin: boolean;
}

/**
 * A pull request needs a feature branch: a detached HEAD has none, and pushing the default
 * branch (or main/master, which the Bash tool also protected) would land the work on the base.
 * Nor is a branch origin already has pushed unless the run started on it: the agent can check
 * out any branch (`release/v2`) and build on it, and a push there would land its commits on a
 * branch nobody reviews them on. A branch the agent made during the run is new to origin.
 */
export function decidePrBranch(branch: string | undefined, defaultBranch: string | undefined, start?: PrBranchStart): PrBranchDecision {
  if (!branch || branch === 'HEAD') return { ok: false, reason: 'HEAD is detached' };
  const protectedBranches = new Set(['main', 'master', ...(defaultBranch ? [defaultBranch] : [])]);
  if (protectedBranches.has(branch)) return { ok: false, reason: `'${branch}' is the default branch` };
  if (start && branch !== start.branch && start.onOrigin)
    return {
      ok: false,
      reason: `HEAD names '${branch}', which origin already has, and the run started on ${start.branch ? `'${start.branch}'` : 'a detached HEAD'}: ralph pushes an existing branch only when the run started on it`,
    };
  return { ok: true, branch };
}
