// How a fleet job starts: who asked may start ralph (whoever last put the label on needs write
// access: the event's sender, or for a dispatch or a schedule the issue's timeline) and the agent
// has its secret; the issue's branch is taken (unless the issue is done or carried on by another
// job); and the issue becomes the run's task (spec and one-item plan, as ralph-queue does), or the
// run an earlier job left is taken up.

import { RalphError } from '../errors.js';
import { ledgerPath, planMemoryPath } from '../state/ledger.js';
import type { Deps } from '../platform/deps.js';
import { ralphPaths, type RalphPaths } from '../state/paths.js';
import { fetchQueueIssue, githubQueueItem, type QueueIssue } from '../queue/queue-issues.js';
import { keepPreviousPlan, writeIssueSpec, writeItemPlan } from '../queue/item-workspace.js';
import { fetchDefaultBranch } from '../lifecycle/lifecycle-gh.js';
import type { FleetJobArgs } from './fleet-command.js';
import { findFleetAgent, presentSecrets } from './fleet-agents.js';
import { readJobEvent, type JobEvent } from './job-event.js';
import { canWrite, fetchLabeller, fetchPermission, issueOfRun, listOpenPullRequests, listWorkflowRuns, removeLabel, type GhCli } from './job-gh.js';
import * as jobGit from './job-git.js';
import { DONE_LABEL, HELP_LABEL } from './fleet-labels.js';
import { jobNumberOf } from './job-outcome.js';

/** The files that steer ralph, taken from the default branch when a branch is continued. */
const CONTROL_FILES = ['.ralphrc', '.ralph/PROMPT.md', '.ralph/AGENT.md'];

/** A job that may run: what started it and the issue as read. */
export interface AdmittedJob {
  readonly event: JobEvent;
  readonly issue: QueueIssue;
}

/** The issue's branches as the job took them. */
export interface IssueBranches {
  /** The branch the work is pushed to. */
  readonly work: string;
  /** The branch the run's state is kept on between jobs. */
  readonly state: string;
  readonly defaultBranch: string;
  /** The commit the job's work starts from. */
  readonly since: string;
}

/** The run the job works on: a new one, or the one an earlier job left. */
export interface StartedRun {
  readonly restored: boolean;
  readonly jobNumber: number;
  readonly paths: RalphPaths;
  /** Where the plan's memory lives beside ralph's ledger (it rides with the state). */
  readonly planMemory: string;
}

/** The job may run (undefined: nothing to do, said in the log); a missing secret or an unreadable issue throws. */
export async function admitJob(args: FleetJobArgs, deps: Deps, cli: GhCli): Promise<AdmittedJob | undefined> {
  const log = deps.logger;
  const issue = args.issue;
  const agent = findFleetAgent(args.agent);
  if (!agent) throw new RalphError('bad_flag', `--agent: unknown agent '${args.agent}'`, { hint: 'use claude, codex or gemini' });
  const event = readJobEvent(deps.env);
  if (event.kind === 'labeled') {
    if (event.label !== args.label) {
      log.info(`Label '${event.label}' is not the fleet's label '${args.label}': nothing to do`);
      return undefined;
    }
    if (!(await labellerMayStart(issue, event.sender, 'labelled', cli, log))) return undefined;
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
  // A dispatched or scheduled job has no labeller of its own: whoever last put the fleet's label
  // on the issue must have write access, as for a label event (a triager's label is refused by
  // its own job, and must not be run by the schedule's sweep or a continuation).
  if (event.kind !== 'labeled' && !(await lastLabellerMayStart(args, cli, log))) return undefined;
  return { event, issue: fetched.issue };
}

async function lastLabellerMayStart(args: FleetJobArgs, cli: GhCli, log: Deps['logger']): Promise<boolean> {
  const issue = args.issue;
  const labeller = await fetchLabeller(issue, args.label, cli);
  if (!labeller.ok) {
    log.warn(`Could not read who labelled issue #${issue} (${labeller.message}); only people with write access start ralph. Nothing was run.`);
    return false;
  }
  if (labeller.value === undefined) {
    log.warn(`Issue #${issue} has no '${args.label}' label added by anyone; label it (ralph-fleet start ${issue}). Nothing was run.`);
    return false;
  }
  return labellerMayStart(issue, labeller.value, 'labelled', cli, log);
}

/** The issue's work branch checked out (continued from origin, or new); undefined: the issue is done or another job's. */
export async function takeIssueBranch(
  args: FleetJobArgs,
  admitted: AdmittedJob,
  git: jobGit.JobGit,
  cli: GhCli,
  log: Deps['logger'],
): Promise<IssueBranches | undefined> {
  const { issue } = args;
  const { event } = admitted;
  const labels = admitted.issue.labels;
  // A second label event waits behind the running job (its concurrency group), then finds the
  // issue done, waiting for help, or carried on by a dispatched job: it leaves it to them.
  // When no other job of the issue is pending, it takes the run up as the continuation would.
  // A schedule's job checks the same: its sweep listed the issue before it waited its turn.
  if (event.kind === 'labeled' || event.kind === 'schedule') {
    const busy = await findTakenWork(issue, labels, args.workflow, git, cli);
    if (busy) {
      log.info(`Issue #${issue} ${busy}: this ${event.kind === 'schedule' ? "schedule's job" : 'label event'} changes nothing`);
      return undefined;
    }
  }
  if (labels.includes(DONE_LABEL)) {
    log.info(`Issue #${issue} is labelled ${DONE_LABEL}: nothing to do`);
    return undefined;
  }
  const work = jobGit.workBranchOf(issue);
  await jobGit.setBotIdentity(git);
  const remoteDefault = await fetchDefaultBranch({ number: issue }, cli);
  if (!remoteDefault.ok) throw new RalphError('gh_failed', `Could not read the default branch: ${remoteDefault.message}`, { hint: 'check GH_TOKEN' });
  const defaultBranch = remoteDefault.value;
  const how = await jobGit.checkoutWorkBranch(git, work, defaultBranch);
  log.info(how === 'continued' ? `Continuing branch ${work} from origin` : `New branch ${work} from ${defaultBranch}`);
  const since = await jobGit.requireHeadCommit(git);
  if (how === 'continued') {
    const taken = await jobGit.takeControlFilesFrom(git, defaultBranch, CONTROL_FILES);
    if (taken.length > 0) log.warn(`${taken.join(', ')} changed on ${work}: using ${defaultBranch}'s, as ralph runs nothing an agent could change`);
  }
  return { work, state: jobGit.stateBranchOf(issue), defaultBranch, since };
}

/** The run an earlier job left, restored from the state branch; else the issue as a new run's task. */
export async function startOrResumeRun(
  projectDir: string,
  number: number,
  admitted: AdmittedJob,
  branches: IssueBranches,
  git: jobGit.JobGit,
  deps: Deps,
  cli: GhCli,
): Promise<StartedRun> {
  const { issue } = admitted;
  const paths = ralphPaths(projectDir);
  // The plan's memory rides with the state, from ralph's ledger to the next job's.
  const planMemory = planMemoryPath(ledgerPath(projectDir, deps.env, deps.homeDir));
  const restored = await jobGit.restoreRunState(git, branches.state, planMemory);
  const jobNumber = restored ? (await jobNumberOf(git, branches.state)) + 1 : 1;
  if (restored) {
    deps.logger.info(`Resuming the run of issue #${number} (job ${jobNumber}) from ${branches.state}`);
  } else {
    const item = githubQueueItem(issue, null, new Date(deps.clock.now()).toISOString());
    const spec = writeIssueSpec(paths, issue);
    keepPreviousPlan(paths, deps.clock.now());
    writeItemPlan({ ...paths, ledger: ledgerPath(projectDir, deps.env, deps.homeDir) }, item, spec);
    if (issue.labels.includes(HELP_LABEL)) await removeLabel(number, HELP_LABEL, cli);
  }
  return { restored, jobNumber, paths, planMemory };
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
