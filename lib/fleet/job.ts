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
import { ledgerPath, planMemoryPath } from '../state/ledger.js';
import { costNote } from '../lifecycle/cost-note.js';
import { createDeps } from '../platform/create-deps.js';
import type { Deps } from '../platform/deps.js';
import { ralphPaths } from '../state/paths.js';
import { fetchQueueIssue } from '../queue/queue-issues.js';
import { keepPreviousPlan, writeIssueSpec, writeItemPlan } from '../queue/item-workspace.js';
import { githubQueueItem } from '../queue/queue-issues.js';
import { fetchDefaultBranch } from '../lifecycle/lifecycle-gh.js';
import type { FleetJobArgs } from './fleet-command.js';
import { findFleetAgent, presentSecrets } from './fleet-agents.js';
import { readJobEvent } from './job-event.js';
import {
  addLabel,
  canWrite,
  commentOn,
  dispatchWorkflow,
  fetchLabeller,
  fetchPermission,
  issueOfRun,
  listOpenPullRequests,
  listWorkflowRuns,
  removeLabel,
  type GhCli,
} from './job-gh.js';
import { heldBackNote, keepArtifactFiles, reportFailure, reportHalt, warnIfFailed, type JobRecord } from './job-report.js';
import { pushWork, type WorkPusher } from './job-push.js';
import { withRetries } from './retry.js';
import * as jobGit from './job-git.js';
import { DONE_LABEL, HELP_LABEL } from './fleet-labels.js';
import { decideJobOutcome, describeHalt, jobNumberOf, stateNote, MAX_JOBS, type JobOutcome } from './job-outcome.js';

/** The files that steer ralph, taken from the default branch when a branch is continued. */
const CONTROL_FILES = ['.ralphrc', '.ralph/PROMPT.md', '.ralph/AGENT.md'];

export { DONE_LABEL, HELP_LABEL };

export interface FleetJobContext {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  deps?: Deps;
}

export async function runFleetJob(args: FleetJobArgs, ctx: FleetJobContext): Promise<number> {
  const deps = ctx.deps ?? createDeps({ cwd: ctx.projectDir, env: withGitCredentials(ctx.env) });
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
  const log = deps.logger;
  const agent = findFleetAgent(args.agent);
  if (!agent) throw new RalphError('bad_flag', `--agent: unknown agent '${args.agent}'`, { hint: 'use claude, codex or gemini' });
  const issue = args.issue;

  const event = readJobEvent(deps.env);
  if (event.kind === 'labeled') {
    if (event.label !== args.label) {
      log.info(`Label '${event.label}' is not the fleet's label '${args.label}': nothing to do`);
      return EXIT.ok;
    }
    if (!(await labellerMayStart(issue, event.sender, 'labelled', cli, log))) return EXIT.ok;
  }
  if (presentSecrets(agent, deps.env).length === 0) {
    throw new RalphError(
      'missing_secret',
      `The ${agent.name} agent has no credential: ${agent.secrets.join(' and ')} ${agent.secrets.length > 1 ? 'are' : 'is'} empty`,
      {
        hint: `${agent.secretHint}, then run ralph-fleet start ${issue}`,
      },
    );
  }

  const fetched = await fetchQueueIssue(issue, '', cli);
  if (!fetched.ok)
    throw new RalphError('gh_failed', `Could not read issue #${issue}: ${fetched.message}`, {
      hint: fetched.hint ?? 'check GH_TOKEN and that the issue exists',
    });
  const labels = fetched.issue.labels;
  // A dispatched or scheduled job has no labeller of its own: whoever last put the fleet's label
  // on the issue must have write access, as for a label event (a triager's label is refused by
  // its own job, and must not be run by the schedule's sweep or a continuation).
  if (event.kind !== 'labeled') {
    const labeller = await fetchLabeller(issue, args.label, cli);
    if (!labeller.ok) {
      log.warn(`Could not read who labelled issue #${issue} (${labeller.message}); only people with write access start ralph. Nothing was run.`);
      return EXIT.ok;
    }
    if (labeller.value === undefined) {
      log.warn(`Issue #${issue} has no '${args.label}' label added by anyone; label it (ralph-fleet start ${issue}). Nothing was run.`);
      return EXIT.ok;
    }
    if (!(await labellerMayStart(issue, labeller.value, 'labelled', cli, log))) return EXIT.ok;
  }
  job.checked = true;
  const git: jobGit.JobGit = { runner: deps.processRunner, cwd: ctx.projectDir, env: deps.env };
  const workBranch = jobGit.workBranchOf(issue);
  const stateBranch = jobGit.stateBranchOf(issue);

  // A second label event waits behind the running job (its concurrency group), then finds the
  // issue done, waiting for help, or carried on by a dispatched job: it leaves it to them.
  // When no other job of the issue is pending, it takes the run up as the continuation would.
  // A schedule's job checks the same: its sweep listed the issue before it waited its turn.
  if (event.kind === 'labeled' || event.kind === 'schedule') {
    const busy = await findTakenWork(issue, labels, args.workflow, git, cli);
    if (busy) {
      log.info(`Issue #${issue} ${busy}: this ${event.kind === 'schedule' ? "schedule's job" : 'label event'} changes nothing`);
      return EXIT.ok;
    }
  }
  if (labels.includes(DONE_LABEL)) {
    log.info(`Issue #${issue} is labelled ${DONE_LABEL}: nothing to do`);
    return EXIT.ok;
  }

  await jobGit.setBotIdentity(git);
  const remoteDefault = await fetchDefaultBranch({ number: issue }, cli);
  if (!remoteDefault.ok) throw new RalphError('gh_failed', `Could not read the default branch: ${remoteDefault.message}`, { hint: 'check GH_TOKEN' });
  const defaultBranch = remoteDefault.value;
  const how = await jobGit.checkoutWorkBranch(git, workBranch, defaultBranch);
  log.info(how === 'continued' ? `Continuing branch ${workBranch} from origin` : `New branch ${workBranch} from ${defaultBranch}`);
  const since = await jobGit.headCommit(git);
  if (how === 'continued') {
    const taken = await jobGit.takeControlFilesFrom(git, defaultBranch, CONTROL_FILES);
    if (taken.length > 0) log.warn(`${taken.join(', ')} changed on ${workBranch}: using ${defaultBranch}'s, as ralph runs nothing an agent could change`);
  }

  const paths = ralphPaths(ctx.projectDir);
  // The plan's memory rides with the state, from ralph's ledger to the next job's.
  const planMemory = planMemoryPath(ledgerPath(ctx.projectDir, deps.env, deps.homeDir));
  const restored = await jobGit.restoreRunState(git, stateBranch, planMemory);
  const jobNumber = restored ? (await jobNumberOf(git, stateBranch)) + 1 : 1;
  if (restored) {
    log.info(`Resuming the run of issue #${issue} (job ${jobNumber}) from ${stateBranch}`);
  } else {
    const item = githubQueueItem(fetched.issue, null, new Date(deps.clock.now()).toISOString());
    const spec = writeIssueSpec(paths, fetched.issue);
    keepPreviousPlan(paths, deps.clock.now());
    writeItemPlan({ ...paths, ledger: ledgerPath(ctx.projectDir, deps.env, deps.homeDir) }, item, spec);
    if (labels.includes(HELP_LABEL)) await removeLabel(issue, HELP_LABEL, cli);
  }

  const work: WorkPusher = {
    issue,
    git,
    since,
    branch: workBranch,
    deps,
    job,
    holdBack: !args.allowWorkflowChanges,
    pushed: undefined,
  };
  const { exitCode, exitReason, cutByJobBudget } = await runIssueLoop(args, ctx.projectDir, deps, !restored, issue, fetched.issue.title, work);
  let outcome: JobOutcome = decideJobOutcome({ exitCode, cutByJobBudget, jobNumber, maxJobs: MAX_JOBS });
  log.info(`Job ${jobNumber} of issue #${issue}: ${outcome.kind} (exit ${exitCode}${exitReason ? `, ${exitReason}` : ''})`);
  // Every comment the job ends with tells the run's spend so far: ralph-fleet status reads it back.
  const cost = readRunCost(ctx.projectDir, deps);

  // Done with nothing pushed yet (the lifecycle did not reach its pull request): pushed here.
  if (outcome.kind === 'done' && work.pushed === undefined) await pushWork(work, `Fix #${issue}: ${oneLine(fetched.issue.title)}\n`);
  if (outcome.kind === 'done' && work.pushed === false)
    outcome = { kind: 'needs-help', why: 'the finished work could not be pushed, so no pull request was opened' };
  if (outcome.kind === 'done') {
    await jobGit.deleteRemoteBranch(git, stateBranch);
    await warnIfFailed(log, commentOn(issue, `ralph's run is done (job ${jobNumber}).${heldBackNote(job.heldBack)}\n\n${cost}`, cli), 'comment');
    await warnIfFailed(log, addLabel(issue, DONE_LABEL, cli), `add the label ${DONE_LABEL}`);
    return EXIT.ok;
  }

  // The state first (the run's record, budgets and plan: what the next job resumes), then the
  // work, each push retried; only then the next job.
  // A failed push keeps the state too: the run resumes once the work is on origin.
  const keepsState = outcome.kind === 'continue' || outcome.kind === 'stopped' || work.pushed === false;
  let stateProblem: string | undefined;
  if (keepsState) {
    try {
      await withRetries(
        `save the run's state to ${stateBranch}`,
        () => jobGit.pushStateBranch(git, paths.ralphDir, stateBranch, stateNote(issue, jobNumber), planMemory),
        deps.clock,
        log,
      );
      job.kept.push(`the run's state on branch \`${stateBranch}\` (its record, budgets and plan)`);
    } catch (error) {
      // The work is pushed all the same: losing the state costs the run's memory, not its work.
      stateProblem = `the run's state could not be saved to \`${stateBranch}\` (${(error as Error).message}); \`ralph-fleet start ${issue}\` then starts a new run on the branch`;
      log.error(`Could not save the run's state: ${(error as Error).message}`);
    }
  } else {
    await jobGit.deleteRemoteBranch(git, stateBranch);
  }
  if (work.pushed === undefined) await pushWork(work, `WIP #${issue}: ${oneLine(fetched.issue.title)}\n`);
  if (work.pushed === false || stateProblem) {
    if (work.pushed) job.kept.push(`the job's work on branch \`${workBranch}\``);
    const problems = [work.pushed === false ? `the job's work could not be pushed to \`${workBranch}\`` : undefined, stateProblem].filter(Boolean);
    await reportFailure(issue, problems.join('; and '), job, cli, log, cost);
    return EXIT.couldNotRun;
  }
  const kept = heldBackNote(job.heldBack);
  switch (outcome.kind) {
    case 'continue': {
      const dispatched = await dispatchWorkflow(args.workflow, defaultBranch, issue, cli);
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
          `ralph's job ${jobNumber} reached its time budget (${args.jobMinutes} min); the run continues in a new job on branch \`${workBranch}\`.${kept}\n\n${cost}`,
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
          `ralph's job was stopped. The work so far is on branch \`${workBranch}\`; \`ralph-fleet start ${issue}\` resumes it.${kept}\n\n${cost}`,
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
        await pushWork(work, `Fix #${issue}: ${oneLine(title)}\n`);
      },
    });
    return { exitCode, exitReason, cutByJobBudget };
  } finally {
    loopEnded.abort();
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(name, forward);
  }
}

/** Why a label event finds the issue taken, or undefined when it is free to start. */
async function findTakenWork(issue: number, labels: string[], workflow: string, git: jobGit.JobGit, cli: GhCli): Promise<string | undefined> {
  if (labels.includes(DONE_LABEL)) return `is labelled ${DONE_LABEL}`;
  if (labels.includes(HELP_LABEL)) return `is labelled ${HELP_LABEL} (remove it, then label again or run ralph-fleet start ${issue})`;
  if (await jobGit.remoteHasBranch(git, jobGit.stateBranchOf(issue))) {
    // A group holds one pending run, the newest: this event may have replaced the dispatched
    // continuation, and then this job is the one to take the run up.
    const runs = await listWorkflowRuns(workflow, cli);
    const other = runs.ok
      ? runs.value.find((run) => issueOfRun(run) === issue && run.status !== 'completed' && String(run.databaseId) !== (cli.env.GITHUB_RUN_ID ?? ''))
      : undefined;
    if (other || !runs.ok) return `has a run in progress, carried on by ${other ? `run ${other.databaseId}` : 'a dispatched job'}`;
  }
  const prs = await listOpenPullRequests(cli);
  if (prs.ok && prs.value.some((pr) => pr.headRefName === jobGit.workBranchOf(issue))) return 'has an open pull request';
  return undefined;
}

/** Whether `login`, who put the label on, may start ralph (write access); says why not. */
async function labellerMayStart(issue: number, login: string, how: string, cli: GhCli, log: Deps['logger']): Promise<boolean> {
  const permission = await fetchPermission(login, cli);
  if (permission.ok && canWrite(permission.value)) return true;
  const why = permission.ok ? `has '${permission.value}' access` : `could not be checked (${permission.message})`;
  log.warn(
    `Issue #${issue} was ${how} by '${login}', who ${why}; only people with write access start ralph. Nothing was run. (Someone with write access can remove the label and add it again.)`,
  );
  return false;
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

// On Actions, git asks gh for the token (GH_TOKEN): checkout left none in .git/config, where
// the agent could read it, and the helper's setting holds no secret itself.
function withGitCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!env.GH_TOKEN || env.GITHUB_ACTIONS !== 'true') return env;
  return {
    ...env,
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: 'credential.helper',
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: 'credential.helper',
    GIT_CONFIG_VALUE_1: '!gh auth git-credential',
  };
}

function oneLine(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .trim()
    .slice(0, 200);
}
