// `ralph-fleet job --issue N`: the one step of the fleet's workflow. It checks who asked (whoever
// last put the label on needs write access: the event's sender, or for a dispatch or a schedule
// the issue's timeline) and that the agent has its secret, takes the issue's branch, turns the
// issue into the run's task (spec and one-item plan, as ralph-queue does) or takes up the run an
// earlier job left, and runs the loop with the GitHub lifecycle under the run's budget and the
// job's own time budget. Then it reports on the issue: done (the lifecycle's pull request closing
// the issue, its summary, label ralph-done), continued (state saved, work pushed, next job
// dispatched, in that order), or needs help (a comment saying why and what to do, the branch
// kept). Pushes are tried again with backoff; a job that still cannot finish says on the issue
// what failed, what was kept where and how to resume. The agent's commits are folded into the
// job's one commit, its changes under .github/ held back unless the workflow opted in, and the
// artifact gets regular files copied out of .ralph/.

import { EventEmitter } from 'node:events';
import { loadConfig } from '../config/load-config.js';
import { EXIT, RalphError } from '../errors.js';
import { LoopEvents } from '../loop/events.js';
import { loadRunSpend } from '../limits/limits-store.js';
import { runProject } from '../loop/run-project.js';
import { ledgerPath } from '../state/ledger.js';
import { costNote } from '../lifecycle/cost-note.js';
import { createDeps } from '../platform/create-deps.js';
import type { Deps } from '../platform/deps.js';
import { ralphPaths } from '../state/paths.js';
import type { FleetJobArgs } from './fleet-command.js';
import type { GhCli } from './job-gh.js';
import { keepArtifactFiles, reportFailure, type JobRecord } from './job-report.js';
import { pushWork, type WorkPusher } from './job-push.js';
import * as jobGit from './job-git.js';
import { DONE_LABEL, HELP_LABEL } from './fleet-labels.js';
import { admitJob, startOrResumeRun, takeIssueBranch } from './job-start.js';
import { keepStateAndWork, titleLine, reportDone, reportOutcome, type JobEnd } from './job-end.js';
import { decideJobOutcome, MAX_JOBS, type JobOutcome } from './job-outcome.js';

export { DONE_LABEL, HELP_LABEL };

export interface FleetJobContext {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  deps?: Deps;
}

export async function runFleetJob(args: FleetJobArgs, ctx: FleetJobContext): Promise<number> {
  const deps = ctx.deps ?? createDeps({ cwd: ctx.projectDir, env: jobGit.withGitCredentials(ctx.env) });
  const cli: GhCli = { runner: deps.processRunner, cwd: ctx.projectDir, env: deps.env };
  const job: JobRecord = { checked: false, heldBack: [], kept: [] };
  try {
    return await workOnIssue(args, ctx, deps, cli, job);
  } catch (error) {
    // Whatever stops a job once it took the issue is said on the issue, with what was kept.
    const message = error instanceof RalphError ? error.message : (error as Error).message;
    if (job.checked) await reportFailure(args.issue, message, job, cli, deps.logger);
    if (error instanceof RalphError) throw error;
    throw new RalphError('job_failed', `The job of issue #${args.issue} failed: ${message}`, {
      hint: job.checked ? 'the issue has a comment saying what was kept and how to resume' : "check GH_TOKEN and the job's log",
    });
  } finally {
    keepArtifactFiles(ctx.projectDir, deps.env, job, deps.logger);
  }
}

async function workOnIssue(args: FleetJobArgs, ctx: FleetJobContext, deps: Deps, cli: GhCli, job: JobRecord): Promise<number> {
  const issue = args.issue;
  const admitted = await admitJob(args, deps, cli);
  if (!admitted) return EXIT.ok;
  job.checked = true;
  const git: jobGit.JobGit = { runner: deps.processRunner, cwd: ctx.projectDir, env: deps.env };
  const branches = await takeIssueBranch(args, admitted, git, cli, deps.logger);
  if (!branches) return EXIT.ok;
  const started = await startOrResumeRun(ctx.projectDir, issue, admitted, branches, git, deps, cli);
  const work: WorkPusher = {
    issue,
    git,
    since: branches.since,
    branch: branches.work,
    deps,
    job,
    // Read before the agent runs: from then on it could make git read the commit otherwise.
    heldTree: args.allowWorkflowChanges ? undefined : await jobGit.readHeldTree(git, branches.since),
    ownEntries: await jobGit.readOwnEntries(git),
    pushed: undefined,
  };
  const title = admitted.issue.title;
  const { exitCode, exitReason, cutByJobBudget } = await runIssueLoop(args, ctx.projectDir, deps, !started.restored, issue, title, work);
  let outcome: JobOutcome = decideJobOutcome({ exitCode, cutByJobBudget, jobNumber: started.jobNumber, maxJobs: MAX_JOBS });
  deps.logger.info(`Job ${started.jobNumber} of issue #${issue}: ${outcome.kind} (exit ${exitCode}${exitReason ? `, ${exitReason}` : ''})`);
  // Every comment the job ends with tells the run's spend so far: ralph-fleet status reads it back.
  const end: JobEnd = { args, git, cli, deps, job, work, branches, started, cost: readRunCost(ctx.projectDir, deps), title };

  // Done with nothing pushed yet (the lifecycle did not reach its pull request): pushed here.
  if (outcome.kind === 'done' && work.pushed === undefined) await pushWork(work, `Fix #${issue}: ${titleLine(title)}\n`);
  if (outcome.kind === 'done' && work.pushed === false)
    outcome = { kind: 'needs-help', why: 'the finished work could not be pushed, so no pull request was opened' };
  if (outcome.kind === 'done') return reportDone(end);
  const failed = await keepStateAndWork(end, outcome);
  if (failed !== undefined) return failed;
  return reportOutcome(end, outcome, exitCode, exitReason);
}

/** The job's work: committed once (the agent's commits folded in), pushed with retries. */
async function runIssueLoop(args: FleetJobArgs, projectDir: string, deps: Deps, fresh: boolean, issue: number, title: string, work: WorkPusher) {
  const events = new LoopEvents();
  let exitReason = '';
  events.on('run:finished', (finished) => (exitReason = finished.exitReason));
  // The job's time budget stops the loop as a SIGTERM would (the agent's tree is stopped, the
  // attempt saved for the resume); the runner's own signals are passed on the same way.
  const emitter = new EventEmitter();
  const forward = (signal: NodeJS.Signals) => emitter.emit(signal, signal);
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, forward);
  let cutByJobBudget = false;
  const loopEnded = new AbortController();
  void deps.clock.sleep(Math.round(args.jobMinutes * 60_000), loopEnded.signal).then(() => {
    if (loopEnded.signal.aborted) return;
    cutByJobBudget = true;
    deps.logger.warn(`The job's time budget (${args.jobMinutes} min) is over: stopping the loop to continue in a new job`);
    emitter.emit('SIGTERM', 'SIGTERM');
  });
  try {
    const exitCode = await runProject({
      projectDir,
      deps,
      fresh,
      events,
      signals: emitter,
      flags: {
        GITHUB_ISSUE: String(issue),
        CREATE_PR: true,
        LINK_ISSUE: true,
        CLOSE_SUMMARY: true,
        AUTO_CLOSE: false,
        AGENT_PROVIDER: args.agent,
        MAX_COST_USD: args.maxCostUsd,
        SANDBOX_PROVIDER: args.sandbox ? 'docker' : '',
        CB_AUTO_RESET: true,
        EXIT_CODES: 'ralph',
        // On Actions the issue is where people watch the run: progress comments (with the cost so
        // far, which ralph-fleet status reads) unless the project's configuration says otherwise.
        ...(progressConfigured(projectDir, deps) ? {} : { COMMENT_PROGRESS: true }),
      },
      // The pull request is opened from the branch as pushed: the work is committed and pushed
      // first (with retries); the lifecycle's own push then finds it there.
      beforeCompletion: async () => {
        await pushWork(work, `Fix #${issue}: ${titleLine(title)}\n`);
      },
    });
    return { exitCode, exitReason, cutByJobBudget };
  } finally {
    loopEnded.abort();
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(name, forward);
  }
}

function progressConfigured(projectDir: string, deps: Deps): boolean {
  return loadConfig({ projectDir, homeDir: deps.homeDir, env: deps.env }).sources.COMMENT_PROGRESS.kind !== 'default';
}

/** The run's spend so far (this job's and the earlier jobs'), as the loop's ledger holds it. */
function readRunCost(projectDir: string, deps: Deps): string {
  const paths = { ...ralphPaths(projectDir), ledger: ledgerPath(projectDir, deps.env, deps.homeDir) };
  const spend = loadRunSpend(paths, { logger: deps.logger, clock: deps.clock, quarantine: false }).value?.spend.run;
  return costNote(spend ?? { costUsd: 0, loops: 0, unknownCostLoops: 0 });
}
