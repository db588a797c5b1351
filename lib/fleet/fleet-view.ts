// The fleet seen and steered from a laptop, through gh: `status` (every labelled open issue with
// its state, run, pull request, the run's cost so far as its last job reported it on the issue,
// and the last update), `start` (label, or dispatch when the label is
// already there), `stop` (cancel the issue's run), `logs` (the latest artifact into
// .ralph/fleet/<n>/, summarised as ralph-stats does), and `sweep`, the schedule's list of
// issues nobody works on, printed as the workflow's `issues` output.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FleetCommand } from './fleet-command.js';
import { RalphError } from '../errors.js';
import { nodeProcessRunner } from '../platform/process.js';
import { readMetrics } from '../stats/read-metrics.js';
import { renderStatsTable } from '../stats/render-stats-table.js';
import { checkGhReady, GH_TOOL, runGh } from '../tasks/gh-cli.js';
import { formatUsd } from '../limits/spend.js';
import { alignColumns } from '../text/text-table.js';
import { latestReportedCost, type GhIssueComment } from '../lifecycle/cost-note.js';
import { toPlainTextLine } from '../tasks/task-line.js';
import {
  addLabel,
  cancelRun,
  dispatchWorkflow,
  downloadRunArtifacts,
  issueOfRun,
  listOpenPullRequests,
  listWorkflowRuns,
  type GhCli,
  type WorkflowRun,
} from './job-gh.js';
import { DONE_LABEL, HELP_LABEL } from './fleet-labels.js';
import { workBranchOf } from './job-git.js';
import { decideIssueState, type FleetIssueState } from './issue-state.js';

export interface FleetViewContext {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
}

interface LabelledIssue {
  number: number;
  title: string;
  labels: Array<{ name: string }>;
  updatedAt: string;
  comments: GhIssueComment[];
}

/** gh's `issue list --json comments` gives an issue's first 100 comments; `issue view` gives all. */
const LISTED_COMMENTS = 100;

export interface FleetIssueRow {
  issue: number;
  title: string;
  state: FleetIssueState;
  run: { id: number; status: string; conclusion: string; url: string } | null;
  pull_request: string | null;
  /** The run's cost so far as its last job reported it on the issue (null: no job reported one yet). */
  cost_usd: number | null;
  /** When that job reported it. */
  cost_reported_at: string | null;
  updated_at: string;
}

type ViewCommand = Exclude<FleetCommand, { kind: 'init' | 'job' | 'doctor' }>;

export async function runFleetView(command: ViewCommand, ctx: FleetViewContext): Promise<number> {
  const cli: GhCli = { runner: nodeProcessRunner, cwd: ctx.projectDir, env: ctx.env };
  // Without gh, or logged out, every command fails the same way: say so, with the fix.
  await requireGh(command.kind, cli);
  switch (command.kind) {
    case 'status':
    case 'sweep': {
      const rows = await collectRows(command.label, command.workflow, cli);
      if (command.kind === 'sweep') {
        ctx.write(`issues=${JSON.stringify(rows.filter((row) => row.state === 'queued').map((row) => row.issue))}\n`);
      } else if (command.json) {
        ctx.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else {
        ctx.write(formatRows(rows, command.label));
      }
      return 0;
    }
    case 'start':
      for (const issue of command.issues) {
        const running = (await runsOf(issue, command.workflow, cli)).find((run) => run.status !== 'completed');
        if (running) {
          ctx.write(
            `Issue #${issue} already has a job running (run ${running.databaseId}${running.url ? `, ${running.url}` : ''}): nothing started. ralph-fleet stop ${issue} cancels it.\n`,
          );
          continue;
        }
        const labels = await readLabels(issue, cli);
        const started =
          labels.includes(command.label) || command.dispatch
            ? await dispatchWorkflow(command.workflow, await defaultBranch(cli), issue, cli)
            : await addLabel(issue, command.label, cli);
        if (!started.ok)
          throw new RalphError('gh_failed', `Could not start issue #${issue}: ${started.message}`, { hint: 'check gh auth status and the --workflow name' });
        ctx.write(`Started issue #${issue}\n`);
      }
      return 0;
    case 'stop': {
      const run = (await runsOf(command.issue, command.workflow, cli)).find((r) => r.status !== 'completed');
      if (!run) throw new RalphError('no_run', `Issue #${command.issue} has no running job`, { hint: 'ralph-fleet status lists the runs' });
      // GitHub cancels runs, not jobs: a schedule's run is cancelled only by the user's own choice.
      if (run.sweep) {
        throw new RalphError(
          'sweep_run',
          `Issue #${command.issue} is worked on in the schedule's run ${run.databaseId}, with the other issues that sweep started`,
          {
            hint: `gh run cancel ${run.databaseId} stops them all; the work so far is kept and ralph-fleet start ${command.issue} resumes it`,
          },
        );
      }
      const cancelled = await cancelRun(run.databaseId, cli);
      if (!cancelled.ok) throw new RalphError('gh_failed', `Could not cancel run ${run.databaseId}: ${cancelled.message}`, { hint: 'check gh auth status' });
      ctx.write(`Cancelled run ${run.databaseId} of issue #${command.issue}\n`);
      return 0;
    }
    case 'logs': {
      const run = (await runsOf(command.issue, command.workflow, cli))[0];
      if (!run) throw new RalphError('no_run', `Issue #${command.issue} has no run yet`, { hint: `ralph-fleet start ${command.issue} starts one` });
      const dir = join(ctx.projectDir, '.ralph', 'fleet', String(command.issue), String(run.databaseId));
      const downloaded = await downloadRunArtifacts(run.databaseId, command.issue, dir, cli);
      if (!downloaded.ok)
        throw new RalphError('gh_failed', `Could not download the logs of run ${run.databaseId}: ${downloaded.message}`, {
          hint: 'artifacts are kept 90 days at most',
        });
      ctx.write(`Downloaded the logs of run ${run.databaseId} into ${relative(ctx.projectDir, dir)}\n`);
      const metrics = findFile(dir, 'metrics.jsonl');
      ctx.write(
        metrics
          ? renderStatsTable(readMetrics(metrics).summary(), { source: relative(ctx.projectDir, metrics) })
          : 'No metrics.jsonl in the artifact (the job ended before its first loop)\n',
      );
      return 0;
    }
  }
}

async function requireGh(command: string, cli: GhCli): Promise<void> {
  const ready = await checkGhReady(cli);
  if (ready.ok) return;
  const missing = ready.failure.reason === 'missing-tool';
  throw new RalphError(
    missing ? 'gh_missing' : 'gh_unauthenticated',
    `ralph-fleet ${command} works through the GitHub CLI, ${missing ? 'which is not installed (gh is not on PATH)' : 'which is not logged in'}`,
    {
      hint: missing ? GH_TOOL.installHint : 'run: gh auth login',
    },
  );
}

async function collectRows(label: string, workflow: string, cli: GhCli): Promise<FleetIssueRow[]> {
  const listed = await runGh(['issue', 'list', '--state', 'open', '--label', label, '--limit', '500', '--json', 'number,title,labels,updatedAt,comments'], cli);
  if (!listed.ok) throw new RalphError('gh_failed', listed.failure.message, { hint: listed.failure.hint ?? 'check gh auth status' });
  const issues = JSON.parse(listed.stdout) as LabelledIssue[];
  for (const issue of issues) if ((issue.comments ?? []).length >= LISTED_COMMENTS) issue.comments = await readComments(issue.number, cli);
  const [runs, prs] = await Promise.all([listWorkflowRuns(workflow, cli), listOpenPullRequests(cli)]);
  if (!runs.ok) throw new RalphError('gh_failed', runs.message, { hint: `check the workflow name (--workflow ${workflow})` });
  if (!prs.ok) throw new RalphError('gh_failed', prs.message, { hint: 'check gh auth status' });
  return issues
    .sort((a, b) => a.number - b.number)
    .map((issue) => {
      const issueRuns = runs.value.filter((run) => issueOfRun(run) === issue.number);
      const pr = prs.value.find((p) => p.headRefName === workBranchOf(issue.number));
      const last = issueRuns[0];
      const labels = issue.labels.map((l) => l.name);
      const cost = latestReportedCost(issue.comments ?? []);
      return {
        issue: issue.number,
        title: issue.title,
        state: decideIssueState({ labels, runs: issueRuns, hasPullRequest: pr !== undefined, doneLabel: DONE_LABEL, helpLabel: HELP_LABEL }),
        run: last ? { id: last.databaseId, status: last.status, conclusion: last.conclusion, url: last.url } : null,
        pull_request: pr?.url ?? null,
        cost_usd: cost?.costUsd ?? null,
        cost_reported_at: cost?.reportedAt ?? null,
        updated_at: [issue.updatedAt, last?.updatedAt ?? ''].sort().at(-1)!,
      };
    });
}

function formatRows(rows: FleetIssueRow[], label: string): string {
  if (rows.length === 0) return `No open issue carries the label ${JSON.stringify(label)}\n`;
  const table = rows.map((row) => [
    `#${row.issue}`,
    row.state,
    row.run ? `${row.run.id} (${row.run.conclusion || row.run.status})` : '-',
    row.cost_usd === null ? '-' : `$${formatUsd(row.cost_usd)}`,
    row.pull_request ?? '-',
    row.updated_at,
    toPlainTextLine(row.title).slice(0, 60),
  ]);
  return `${alignColumns([['ISSUE', 'STATE', 'RUN', 'COST', 'PULL REQUEST', 'UPDATED', 'TITLE'], ...table]).join('\n')}\n`;
}

async function runsOf(issue: number, workflow: string, cli: GhCli): Promise<WorkflowRun[]> {
  const runs = await listWorkflowRuns(workflow, cli);
  if (!runs.ok) throw new RalphError('gh_failed', runs.message, { hint: `check the workflow name (--workflow ${workflow})` });
  return runs.value.filter((run) => issueOfRun(run) === issue);
}

async function readComments(issue: number, cli: GhCli): Promise<GhIssueComment[]> {
  const viewed = await runGh(['issue', 'view', String(issue), '--json', 'comments'], cli);
  if (!viewed.ok) throw new RalphError('gh_failed', viewed.failure.message, { hint: 'check gh auth status' });
  return (JSON.parse(viewed.stdout) as { comments?: GhIssueComment[] }).comments ?? [];
}

async function readLabels(issue: number, cli: GhCli): Promise<string[]> {
  const viewed = await runGh(['issue', 'view', String(issue), '--json', 'labels'], cli);
  if (!viewed.ok) throw new RalphError('gh_failed', viewed.failure.message, { hint: 'check the issue number and gh auth status' });
  return ((JSON.parse(viewed.stdout) as { labels?: Array<{ name: string }> }).labels ?? []).map((l) => l.name);
}

async function defaultBranch(cli: GhCli): Promise<string> {
  const viewed = await runGh(['repo', 'view', '--json', 'defaultBranchRef'], cli);
  const name = viewed.ok ? (JSON.parse(viewed.stdout) as { defaultBranchRef?: { name?: string } }).defaultBranchRef?.name : undefined;
  return name || 'main';
}

function findFile(dir: string, name: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === name) return path;
    if (statSync(path).isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    }
  }
  return undefined;
}
