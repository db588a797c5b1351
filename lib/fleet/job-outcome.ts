// How a fleet job ends, from how its loop ended (pure): done, continued in a new job (cut by the
// job's time budget), stopped (the job was cancelled), or needs help (a halt, a limit, or the
// chain of jobs at its end). The job count travels in the state commit's message, which only
// ralph writes.

import { describeExitCode, EXIT } from '../errors.js';
import type { JobGit } from './job-git.js';
import { runGitCommand } from '../platform/git-operations.js';

/** A run continues in at most this many jobs (60 hours on hosted runners). */
export const MAX_JOBS = 10;

export type JobOutcome = { kind: 'done' } | { kind: 'continue' } | { kind: 'stopped' } | { kind: 'needs-help'; why?: string };

export function decideJobOutcome(input: { exitCode: number; cutByJobBudget: boolean; jobNumber: number; maxJobs: number }): JobOutcome {
  if (input.exitCode === EXIT.ok) return { kind: 'done' };
  // The loop's own ending wins over the budget's stop that came as it ended (a halt, a limit).
  if (input.cutByJobBudget && input.exitCode === EXIT.sigterm) {
    return input.jobNumber < input.maxJobs ? { kind: 'continue' } : { kind: 'needs-help', why: `the run used all ${input.maxJobs} jobs it may take` };
  }
  if (input.exitCode === EXIT.sigint || input.exitCode === EXIT.sigterm || input.exitCode === EXIT.sighup) return { kind: 'stopped' };
  return { kind: 'needs-help' };
}

export function describeHalt(exitCode: number, exitReason: string, why?: string): string {
  if (why) return why;
  const kind = describeExitCode(exitCode);
  return exitReason ? `${kind} (${exitReason})` : `${kind} (exit ${exitCode})`;
}

export function stateNote(issue: number, jobNumber: number): string {
  return `ralph-fleet state of issue #${issue} after job ${jobNumber}`;
}

/** The number of the job that saved the state branch (0 when its message is not ralph's). */
export async function jobNumberOf(git: JobGit, stateBranch: string): Promise<number> {
  const result = await runGitCommand(git.runner, ['log', '-1', '--format=%s', `refs/remotes/origin/${stateBranch}`], {
    cwd: git.cwd,
    env: git.env,
    timeoutMs: 30_000,
  });
  const match = /after job (\d+)$/.exec(result.stdout.trim());
  return match ? Number(match[1]) : 0;
}
