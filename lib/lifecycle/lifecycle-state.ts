// .ralph/.github_lifecycle_state: what the GitHub issue lifecycle of a run has done, in the Bash
// tool's shape ({issue, lifecycle, updated_at}) so either version's views can read it. We also
// store the issue's real title. Saved atomically; a corrupt file is set aside, never a crash.
// The schema is built on first parse (`z.lazy`, as in schemas.ts): the monitor loads this module
// but only a run on a GitHub issue writes the file.

import * as z from '../state/zod.js';
import { writeJsonAtomic } from '../state/atomic-write.js';
import type { RalphPaths } from '../state/paths.js';
import { booleanField, numberField, optionalStringField, stringField, stringListField } from '../state/schema-fields.js';
import { readStateFile, type StateReadOptions } from '../state/state-file.js';
import type { HeldState } from '../state/held-state.js';
import type { IssueRef } from './issue-ref.js';
import type { LifecycleSettings } from './lifecycle-actions.js';

const nullableString = () => z.preprocess((v) => (v === undefined || v === '' ? null : v), z.string().nullable());

export const lifecycleStateSchema = z.lazy(() =>
  z.looseObject({
    issue: z.looseObject({
      number: numberField(),
      /** `owner/repo`, or '' for the repository gh infers from the git remote. */
      repo: stringField(),
      title: stringField(),
    }),
    lifecycle: z.looseObject({
      initialized_at: stringField(),
      /** HEAD when the run started ('' outside a repository): what "added during the run" is measured from. */
      start_sha: stringField(),
      /** The branch HEAD named when the run started (ours; absent: detached, or written by the Bash tool). */
      start_branch: optionalStringField(),
      last_progress_comment: nullableString(),
      progress_comments_posted: numberField(),
      completion_detected_at: nullableString(),
      pr_created: booleanField(),
      pr_url: nullableString(),
      issue_closed: booleanField(),
      followups_created: stringListField(),
    }),
    updated_at: stringField(),
    /** The run that tracks this issue (ours; the Bash tool writes none): views show it as current only during that run. */
    run_id: optionalStringField(),
  }),
);

export type LifecycleState = z.infer<typeof lifecycleStateSchema>;

export function newLifecycleState(
  issue: { number: number; repo?: string; title: string },
  start: { sha: string; branch: string | undefined },
  now: string,
): LifecycleState {
  return {
    issue: { number: issue.number, repo: issue.repo ?? '', title: issue.title },
    lifecycle: {
      initialized_at: now,
      start_sha: start.sha,
      ...(start.branch === undefined ? {} : { start_branch: start.branch }),
      last_progress_comment: null,
      progress_comments_posted: 0,
      completion_detected_at: null,
      pr_created: false,
      pr_url: null,
      issue_closed: false,
      followups_created: [],
    },
    updated_at: now,
  };
}

type Paths = Pick<RalphPaths, 'githubLifecycleState'>;

/** The saved state, or undefined when there is none (or it was unreadable and set aside). */
export function loadLifecycleState(paths: Paths, options: StateReadOptions): LifecycleState | undefined {
  const read = readStateFile(paths.githubLifecycleState, lifecycleStateSchema.optional(), undefined, options);
  return read.value;
}

export function saveLifecycleState(paths: Paths, state: LifecycleState): void {
  writeJsonAtomic(paths.githubLifecycleState, state);
}

/** A run's issue lifecycle: the issue, its settings, and its state held for the run. */
export interface IssueLifecycle {
  readonly ref: IssueRef;
  readonly settings: LifecycleSettings;
  /** .github_lifecycle_state, held for the run and written through (a failed write is a warning). */
  readonly state: HeldState<LifecycleState>;
}
