// The gh calls of a fleet job and of the fleet's views: the labeller's permission, labels,
// comments (bodies on stdin), open pull requests of a branch, dispatching the workflow, and the
// workflow's runs. Each is one argv array; a failure comes back as a value with gh's message.

import type { ExternalCliOptions } from '../tasks/external-cli.js';
import { parseConcatenatedJsonArrays, runGh } from '../tasks/gh-cli.js';

export type GhCli = Omit<ExternalCliOptions, 'input'>;
export type GhValue<T> = { ok: true; value: T } | { ok: false; message: string };

/** Roles that may push to the repository: only they can start a job with a label. */
const WRITERS = new Set(['admin', 'maintain', 'write']);

export function canWrite(permission: string): boolean {
  return WRITERS.has(permission);
}

/** The user's permission on the repository (`admin`, `maintain`, `write`, `triage`, `read`, `none`). */
export async function fetchPermission(user: string, cli: GhCli): Promise<GhValue<string>> {
  // A login is letters, digits and single dashes (and `[bot]`): nothing else reaches the API path.
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(\[bot\])?$/.test(user)) return { ok: false, message: `'${user}' is not a GitHub login` };
  const result = await gh(['api', `repos/{owner}/{repo}/collaborators/${user}/permission`], cli);
  if (!result.ok) return result;
  const parsed = parseJson(result.value) as { role_name?: unknown; permission?: unknown } | undefined;
  // role_name tells maintain and triage apart; permission folds them into write and read.
  const role = typeof parsed?.role_name === 'string' ? parsed.role_name : parsed?.permission;
  return typeof role === 'string' ? { ok: true, value: role } : { ok: false, message: 'gh api …/permission returned no permission' };
}

/**
 * Who last added `label` to the issue, from its timeline (undefined when no event says so). A
 * job started by a dispatch or a schedule has no labeller of its own: this one is checked.
 */
export async function fetchLabeller(issue: number, label: string, cli: GhCli): Promise<GhValue<string | undefined>> {
  const result = await gh(['api', '--paginate', `repos/{owner}/{repo}/issues/${issue}/timeline`], cli);
  if (!result.ok) return result;
  let events: unknown[];
  try {
    events = parseConcatenatedJsonArrays(result.value);
  } catch {
    return { ok: false, message: 'gh api …/timeline returned no list' };
  }
  let labeller: string | undefined;
  for (const event of events as Array<{ event?: unknown; label?: { name?: unknown }; actor?: { login?: unknown } }>) {
    if (event?.event === 'labeled' && event.label?.name === label && typeof event.actor?.login === 'string') labeller = event.actor.login;
  }
  return { ok: true, value: labeller };
}

export function addLabel(issue: number, label: string, cli: GhCli): Promise<GhValue<string>> {
  return gh(['issue', 'edit', String(issue), '--add-label', label], cli);
}

export function removeLabel(issue: number, label: string, cli: GhCli): Promise<GhValue<string>> {
  return gh(['issue', 'edit', String(issue), '--remove-label', label], cli);
}

export function commentOn(issue: number, body: string, cli: GhCli): Promise<GhValue<string>> {
  return gh(['issue', 'comment', String(issue), '--body-file', '-'], cli, body);
}

export interface OpenPullRequest {
  number: number;
  url: string;
  headRefName: string;
}

/** The open pull requests (their head branches), to tell which issues have one. */
export async function listOpenPullRequests(cli: GhCli): Promise<GhValue<OpenPullRequest[]>> {
  const result = await gh(['pr', 'list', '--state', 'open', '--limit', '500', '--json', 'number,url,headRefName'], cli);
  if (!result.ok) return result;
  const parsed = parseJson(result.value);
  return Array.isArray(parsed) ? { ok: true, value: parsed as OpenPullRequest[] } : { ok: false, message: 'gh pr list returned no list' };
}

/** `gh workflow run <file> --ref <branch> -f issue=N`: a new job for the issue. */
export function dispatchWorkflow(workflow: string, ref: string, issue: number, cli: GhCli): Promise<GhValue<string>> {
  return gh(['workflow', 'run', workflow, '--ref', ref, '-f', `issue=${issue}`], cli);
}

export interface WorkflowRun {
  databaseId: number;
  displayTitle: string;
  status: string;
  conclusion: string;
  createdAt: string;
  updatedAt: string;
  url: string;
  /** A job of a schedule's run (`ralph sweep`), which works on several issues: databaseId is that run's. */
  sweep?: boolean;
}

/** The schedule's runs whose jobs are read: every one not completed, and the newest few. */
const SWEEP_RUNS_READ = 5;

/**
 * The workflow's recent runs, newest first, each issue job of a schedule's run (named `ralph
 * issue #N` like a run, in the run's place) in place of that run: the issues a sweep fanned out
 * are running, or were last run, there.
 */
export async function listWorkflowRuns(workflow: string, cli: GhCli): Promise<GhValue<WorkflowRun[]>> {
  const result = await gh(
    ['run', 'list', '--workflow', workflow, '--limit', '200', '--json', 'databaseId,displayTitle,status,conclusion,createdAt,updatedAt,url'],
    cli,
  );
  if (!result.ok) return result;
  const parsed = parseJson(result.value);
  if (!Array.isArray(parsed)) return { ok: false, message: 'gh run list returned no list' };
  const runs: WorkflowRun[] = [];
  let sweepsRead = 0;
  for (const run of parsed as WorkflowRun[]) {
    if (run.displayTitle !== SWEEP_RUN_NAME) runs.push(run);
    else if (run.status !== 'completed' || sweepsRead < SWEEP_RUNS_READ) {
      sweepsRead += 1;
      const jobs = await listSweepJobs(run, cli);
      if (!jobs.ok) return jobs;
      runs.push(...jobs.value);
    }
  }
  return { ok: true, value: runs };
}

export const SWEEP_RUN_NAME = 'ralph sweep';

interface RunJob {
  name: string;
  status: string;
  conclusion: string;
  startedAt?: string;
  completedAt?: string;
  url: string;
}

async function listSweepJobs(run: WorkflowRun, cli: GhCli): Promise<GhValue<WorkflowRun[]>> {
  const result = await gh(['run', 'view', String(run.databaseId), '--json', 'jobs'], cli);
  if (!result.ok) return result;
  const jobs = (parseJson(result.value) as { jobs?: RunJob[] } | undefined)?.jobs;
  if (!Array.isArray(jobs)) return { ok: false, message: `gh run view ${run.databaseId} returned no jobs` };
  return {
    ok: true,
    value: jobs
      .filter((job) => issueOfRun({ displayTitle: job.name }) !== undefined)
      .map((job) => ({
        databaseId: run.databaseId,
        displayTitle: job.name,
        status: job.status,
        conclusion: job.conclusion,
        createdAt: job.startedAt || run.createdAt,
        updatedAt: job.completedAt || job.startedAt || run.updatedAt,
        url: job.url,
        sweep: true,
      })),
  };
}

/** The issue a run (or a schedule's issue job) works on, from its name: `ralph issue #N`. */
export function issueOfRun(run: Pick<WorkflowRun, 'displayTitle'>): number | undefined {
  const match = /^ralph issue #(\d+)$/.exec(run.displayTitle);
  return match ? Number(match[1]) : undefined;
}

export function cancelRun(id: number, cli: GhCli): Promise<GhValue<string>> {
  return gh(['run', 'cancel', String(id)], cli);
}

/** The issue's artifacts of a run (a schedule's run holds those of several issues). */
export function downloadRunArtifacts(id: number, issue: number, dir: string, cli: GhCli): Promise<GhValue<string>> {
  return gh(['run', 'download', String(id), '--pattern', `ralph-issue-${issue}-*`, '--dir', dir], cli);
}

async function gh(args: string[], cli: GhCli, input?: string): Promise<GhValue<string>> {
  const outcome = await runGh(args, { ...cli, ...(input === undefined ? {} : { input }) });
  return outcome.ok ? { ok: true, value: outcome.stdout } : { ok: false, message: outcome.failure.message };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
