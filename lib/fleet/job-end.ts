// How a fleet job ends, once the loop stopped: done (the state branch gone, a comment, the label
// ralph-done), or the state saved and the work pushed (in that order, each retried), then
// continued in a dispatched job, stopped, or left for help with a comment saying why. A job that
// cannot keep its work or state says so on the issue, with what was kept where.

import { EXIT } from '../errors.js';
import type { Deps } from '../platform/deps.js';
import type { FleetJobArgs } from './fleet-command.js';
import { addLabel, commentOn, dispatchWorkflow, type GhCli } from './job-gh.js';
import { heldBackNote, reportFailure, reportHalt, warnIfFailed, type JobRecord } from './job-report.js';
import { pushWork, type WorkPusher } from './job-push.js';
import { withRetries } from './retry.js';
import * as jobGit from './job-git.js';
import { DONE_LABEL } from './fleet-labels.js';
import { describeHalt, stateNote, type JobOutcome } from './job-outcome.js';
import type { IssueBranches, StartedRun } from './job-start.js';

/** What the end of a job works with. */
export interface JobEnd {
  readonly args: FleetJobArgs;
  readonly git: jobGit.JobGit;
  readonly cli: GhCli;
  readonly deps: Deps;
  readonly job: JobRecord;
  readonly work: WorkPusher;
  readonly branches: IssueBranches;
  readonly started: StartedRun;
  /** The run's spend so far, as every comment the job ends with tells it. */
  readonly cost: string;
  /** The issue's title. */
  readonly title: string;
}

/** The run is done: its state branch goes, the issue is told and labelled. */
export async function reportDone({ args, git, cli, deps, job, branches, started, cost }: JobEnd): Promise<number> {
  const issue = args.issue;
  await jobGit.deleteRemoteBranch(git, branches.state);
  await warnIfFailed(deps.logger, commentOn(issue, `ralph's run is done (job ${started.jobNumber}).${heldBackNote(job.heldBack)}\n\n${cost}`, cli), 'comment');
  await warnIfFailed(deps.logger, addLabel(issue, DONE_LABEL, cli), `add the label ${DONE_LABEL}`);
  return EXIT.ok;
}

/**
 * The state first (the run's record, budgets and plan: what the next job resumes), then the
 * work, each push retried; only then the next job. A failed push keeps the state too: the run
 * resumes once the work is on origin. The exit code when either could not be kept (said on the
 * issue), else undefined.
 */
export async function keepStateAndWork(end: JobEnd, outcome: JobOutcome): Promise<number | undefined> {
  const { args, git, cli, deps, job, work, branches, started, cost, title } = end;
  const issue = args.issue;
  const keepsState = outcome.kind === 'continue' || outcome.kind === 'stopped' || work.pushed === false;
  let stateProblem: string | undefined;
  if (keepsState) {
    try {
      await withRetries(
        `save the run's state to ${branches.state}`,
        () => jobGit.pushStateBranch(git, started.paths.ralphDir, branches.state, stateNote(issue, started.jobNumber), started.planMemory),
        deps.clock,
        deps.logger,
      );
      job.kept.push(`the run's state on branch \`${branches.state}\` (its record, budgets and plan)`);
    } catch (error) {
      // The work is pushed all the same: losing the state costs the run's memory, not its work.
      stateProblem = `the run's state could not be saved to \`${branches.state}\` (${(error as Error).message}); \`ralph-fleet start ${issue}\` then starts a new run on the branch`;
      deps.logger.error(`Could not save the run's state: ${(error as Error).message}`);
    }
  } else {
    await jobGit.deleteRemoteBranch(git, branches.state);
  }
  if (work.pushed === undefined) await pushWork(work, `WIP #${issue}: ${titleLine(title)}\n`);
  if (work.pushed !== false && !stateProblem) return undefined;
  if (work.pushed) job.kept.push(`the job's work on branch \`${branches.work}\``);
  const problems = [work.pushed === false ? `the job's work could not be pushed to \`${branches.work}\`` : undefined, stateProblem].filter(Boolean);
  await reportFailure(issue, problems.join('; and '), job, cli, deps.logger, cost);
  return EXIT.couldNotRun;
}

/** With the state and work kept: the next job dispatched, the stop said, or the halt reported. */
export async function reportOutcome(end: JobEnd, outcome: Exclude<JobOutcome, { kind: 'done' }>, exitCode: number, exitReason: string): Promise<number> {
  const { args, cli, deps, job, branches, started, cost } = end;
  const issue = args.issue;
  const log = deps.logger;
  const kept = heldBackNote(job.heldBack);
  switch (outcome.kind) {
    case 'continue': {
      const dispatched = await dispatchWorkflow(args.workflow, branches.defaultBranch, issue, cli);
      if (!dispatched.ok) {
        await reportHalt(
          issue,
          `the job reached its time budget and the next job could not be started (${dispatched.message}); the run's state is kept: \`ralph-fleet start ${issue}\` resumes it`,
          kept,
          cost,
          cli,
          log,
        );
        return EXIT.couldNotRun;
      }
      await warnIfFailed(
        log,
        commentOn(
          issue,
          `ralph's job ${started.jobNumber} reached its time budget (${args.jobMinutes} min); the run continues in a new job on branch \`${branches.work}\`.${kept}\n\n${cost}`,
          cli,
        ),
        'comment',
      );
      log.info(`Dispatched ${args.workflow} for issue #${issue}: the next job resumes this run`);
      return EXIT.ok;
    }
    case 'stopped':
      // Cancelled (ralph-fleet stop): the state is kept, so `ralph-fleet start` takes the run up again.
      await warnIfFailed(
        log,
        commentOn(
          issue,
          `ralph's job was stopped. The work so far is on branch \`${branches.work}\`; \`ralph-fleet start ${issue}\` resumes it.${kept}\n\n${cost}`,
          cli,
        ),
        'comment',
      );
      return exitCode;
    case 'needs-help':
      await reportHalt(issue, describeHalt(exitCode, exitReason, outcome.why), kept, cost, cli, log);
      return exitCode === EXIT.ok ? EXIT.halted : exitCode;
  }
}

/** An issue's title on one line, for a commit message. */
export function titleLine(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .trim()
    .slice(0, 200);
}
