// The state `ralph-fleet status` shows for a labelled issue (pure): done, needs help, running
// (its first job), continuing (a later job of the same run), or queued (waiting for a job).

export type FleetIssueState = 'queued' | 'running' | 'continuing' | 'done' | 'needs help';

export interface IssueStateInput {
  labels: readonly string[];
  /** The issue's runs, newest first. */
  runs: ReadonlyArray<{ status: string; conclusion: string }>;
  hasPullRequest: boolean;
  doneLabel: string;
  helpLabel: string;
}

export function decideIssueState(input: IssueStateInput): FleetIssueState {
  if (input.labels.includes(input.doneLabel) || input.hasPullRequest) return 'done';
  if (input.labels.includes(input.helpLabel)) return 'needs help';
  const [last, ...earlier] = input.runs;
  if (!last || last.status === 'completed') return 'queued';
  if (last.status !== 'in_progress') return earlier.length > 0 ? 'continuing' : 'queued';
  return earlier.some((run) => run.status === 'completed' && run.conclusion === 'success') ? 'continuing' : 'running';
}
