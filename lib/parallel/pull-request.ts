// `--parallel-land pr`: a unit's work lands as a pull request instead of a local merge. Its
// branch is pushed to origin (through the git gateway: to origin's URL as the run started), then
// the pull request is found (one already open or closed for that branch is kept: a re-run never
// opens a second) or opened with `gh api … pulls`, the request (title, body) on stdin, so no
// plan or agent text is ever in argv. Each failure comes back as a value saying exactly which
// step failed and how to finish by hand.

import { stripTerminalControls } from '../text/terminal-text.js';
import type { ProcessRunner } from '../platform/process.js';
import { checkGhReady, runGh } from '../tasks/gh-cli.js';
import { RalphError } from '../errors.js';
import type { RalphPaths } from '../state/paths.js';
import { gitMessageLine, runGit, type GitContext } from './git.js';
import { prepareUnitBranch, tickUnitItem, type MergeStep } from './merge.js';
import { stripItemMark } from './plan-units.js';
import type { ParallelRunState, UnitRecord } from './run-state.js';

export interface PullRequestPlace {
  projectDir: string;
  runId: string;
  runBranch: string;
  /** The branch the pull request asks to merge into. */
  base: string;
  draft: boolean;
  redact: (text: string) => string;
}

export type LandStep = 'commit' | 'push' | 'pull-request';

export type PullRequestResult = { kind: 'opened'; url: string; existed: boolean } | { kind: 'failed'; step: LandStep; message: string };

export type PullRequestLanding = { kind: 'in-review'; url: string; existed: boolean; warnings: string[] } | { kind: 'failed'; step: LandStep; message: string };

/**
 * A unit whose loop ended done, landed as a pull request: its branch made ready (leftovers
 * committed, .ralph/ kept out), pushed, and its pull request found or opened, side by side with
 * the other units; then, in `tickInTurn` (the merge queue's turn: the plan is the main
 * worktree's), its item ticked with the pull request's URL, left uncommitted: the checked-out
 * branch gets no commit of ralph's in this mode. The caller records the unit in review only
 * once this returns, so a crash before takes it up again (and finds the pull request opened).
 */
export async function landUnitAsPullRequest(
  git: GitContext,
  paths: RalphPaths,
  unit: UnitRecord,
  dir: string,
  place: PullRequestPlace,
  tickInTurn: (tick: () => Promise<MergeStep>) => Promise<MergeStep>,
): Promise<PullRequestLanding> {
  const prepared = await prepareUnitBranch(git, dir, unit, place.runBranch);
  if (!prepared.ok) return { kind: 'failed', step: 'commit', message: prepared.message };
  const opened = await openUnitPullRequest(git, unit, place);
  if (opened.kind === 'failed') return opened;
  const ticked = await tickInTurn(() => tickUnitItem(git, paths, unit, { note: `(in review: ${opened.url})`, commit: false }));
  return { kind: 'in-review', url: opened.url, existed: opened.existed, warnings: ticked.ok ? [] : [`after its pull request: ${ticked.message}`] };
}

/**
 * The branch a unit's pull request (and its worktree) starts from: the branch of the unit it
 * comes after while that one is in review (a stacked pull request), else the run branch.
 */
export function pullRequestBase(run: Pick<ParallelRunState, 'run_branch' | 'units'>, unit: Pick<UnitRecord, 'after'>): string {
  const inReview = run.units.find((u) => unit.after.includes(u.slug) && u.state === 'in-review');
  return inReview ? inReview.branch : run.run_branch;
}

/**
 * Before a run in pull-request mode starts anything: the repository has a remote `origin` (the
 * branches go there) and gh is installed and logged in.
 */
export async function assertCanOpenPullRequests(
  git: GitContext,
  projectDir: string,
  deps: { processRunner: ProcessRunner; env: NodeJS.ProcessEnv },
): Promise<void> {
  const origin = await runGit(git, projectDir, ['remote', 'get-url', '--push', 'origin']);
  if (!origin.ok)
    throw new RalphError('parallel_no_origin', "--parallel-land pr pushes each unit's branch to origin, and this repository has no remote named origin", {
      hint: 'git remote add origin <url> (then push the checked-out branch there), or land the units here: --parallel-land merge',
    });
  const gh = await checkGhReady({ runner: deps.processRunner, cwd: projectDir, env: deps.env });
  if (!gh.ok)
    throw new RalphError('parallel_no_gh', `--parallel-land pr opens each unit's pull request with gh: ${gh.failure.message}`, {
      hint: `${gh.failure.hint ?? 'see gh auth status'}, or land the units here: --parallel-land merge`,
    });
}

/** Pushes the unit's branch to origin and finds or opens its pull request. */
export async function openUnitPullRequest(git: GitContext, unit: UnitRecord, place: PullRequestPlace): Promise<PullRequestResult> {
  const pushed = await pushUnitBranch(git, place.projectDir, unit.branch);
  if (!pushed.ok) return { kind: 'failed', step: 'push', message: pushed.message };
  const gh = { runner: git.runner, cwd: place.projectDir, env: git.env };
  const found = await findPullRequest(gh, unit.branch);
  if (!found.ok) return { kind: 'failed', step: 'pull-request', message: found.message };
  if (found.url) return { kind: 'opened', url: found.url, existed: true };
  const request = {
    title: place.redact(pullRequestTitle(unit)),
    head: unit.branch,
    base: place.base,
    body: place.redact(pullRequestBody(unit, place)),
    draft: place.draft,
  };
  const created = await runGh(['api', '--method', 'POST', 'repos/{owner}/{repo}/pulls', '--input', '-'], { ...gh, input: JSON.stringify(request) });
  // gh's own words, without runGh's "gh api --method failed:" before them.
  if (!created.ok) return { kind: 'failed', step: 'pull-request', message: created.failure.message.replace(/^gh api --method failed: /, 'gh api: ') };
  const url = readField(created.stdout, 'html_url');
  return url ? { kind: 'opened', url, existed: false } : { kind: 'failed', step: 'pull-request', message: 'gh api …/pulls returned no html_url' };
}

/** `git push origin refs/heads/<branch>:refs/heads/<branch>`; a branch name never starts with `-`. */
async function pushUnitBranch(git: GitContext, projectDir: string, branch: string): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const pushed = await runGit(git, projectDir, ['push', '-q', 'origin', `refs/heads/${branch}:refs/heads/${branch}`]);
    if (pushed.ok) return { ok: true };
    // git push starts with progress and "To <remote>" lines: the error is the fatal:/error: one.
    const error = pushed.stderr.split(/\r?\n/).find((line) => /^(fatal|error):/.test(line.trim()));
    return { ok: false, message: stripTerminalControls(error?.trim() ?? gitMessageLine(pushed)) };
  } catch (error) {
    // The gateway refuses a remote the run did not start with.
    return { ok: false, message: (error as Error).message };
  }
}

/** The pull request of the branch, open or not (`url` undefined: none). */
async function findPullRequest(
  gh: { runner: ProcessRunner; cwd: string; env: NodeJS.ProcessEnv },
  branch: string,
): Promise<{ ok: true; url?: string } | { ok: false; message: string }> {
  const listed = await runGh(['pr', 'list', '--head', branch, '--state', 'all', '--json', 'url', '--limit', '1'], gh);
  if (!listed.ok) return { ok: false, message: listed.failure.message };
  try {
    const prs: unknown = JSON.parse(listed.stdout);
    const url = Array.isArray(prs) ? (prs[0] as { url?: unknown } | undefined)?.url : undefined;
    return { ok: true, url: typeof url === 'string' && isPullRequestUrl(url) ? url : undefined };
  } catch {
    return { ok: false, message: 'gh pr list returned no list' };
  }
}

export function pullRequestTitle(unit: UnitRecord): string {
  return stripItemMark(unit.lines[0] ?? unit.item).trim() || unit.item;
}

function pullRequestBody(unit: UnitRecord, place: PullRequestPlace): string {
  return [
    'The work of one item of the plan, done by ralph in a loop of its own:',
    '',
    ...unit.lines.map((line) => line.replace('[ ]', '[x]')),
    '',
    `Branch \`${unit.branch}\` of \`ralph --parallel\` run ${place.runId} (unit ${unit.slug}): ${unit.loops} loop(s).`,
    '',
  ].join('\n');
}

function readField(text: string, field: string): string | undefined {
  try {
    const value = (JSON.parse(text) as Record<string, unknown>)[field];
    return typeof value === 'string' && isPullRequestUrl(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A URL as gh prints one: http(s), no space or control character (it goes into the plan). */
export function isPullRequestUrl(text: string): boolean {
  return /^https?:\/\/[^\s\x00-\x1f\x7f]+$/.test(text);
}

/** What a unit's needs-review reason says when `step` of its landing failed (the summary reads it back). */
export function landFailureReason(step: LandStep, message: string): string {
  if (step === 'push') return `${PUSH_FAILED}: ${message}`;
  if (step === 'pull-request') return `${PR_FAILED}: ${message}`;
  return message;
}

const PUSH_FAILED = 'its branch could not be pushed to origin';
const PR_FAILED = 'its pull request could not be opened (its branch is on origin)';

/** The commands that finish a pull request's landing by hand, from the unit's needs-review reason; undefined for another reason. */
export function finishPullRequestByHand(unit: Pick<UnitRecord, 'branch' | 'exit_reason'>, base: string, rerun: string): string | undefined {
  const open = `gh pr create --head ${unit.branch} --base ${base}`;
  const then = `then ${rerun} finds the pull request, ticks the item and records its URL`;
  if (unit.exit_reason.startsWith(PUSH_FAILED)) return `git push origin ${unit.branch}, then ${open}; ${then} (or just ${rerun} once origin takes the push)`;
  if (unit.exit_reason.startsWith(PR_FAILED)) return `${open}; ${then} (or just ${rerun} once gh works)`;
  return undefined;
}
