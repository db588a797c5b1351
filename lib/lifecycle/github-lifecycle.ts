// The GitHub issue lifecycle in a run, driven only by the effective configuration (GITHUB_ISSUE
// and the keys beside it, which the flags set like every other flag): opened when the run
// starts, a progress comment after a successful loop when one is due, and on graceful completion
// the summary, pull request, follow-up, labels and close. Every failure is one warning with
// gh's (or git's) message and never changes how the run ends. The state is held in memory and
// written through to .github_lifecycle_state for the views; the agent can write that file, so
// the run never reads it back once it has started.

import { isAbsolute, relative, resolve } from 'node:path';
import type { RalphConfig } from '../config/schema.js';
import type { ConfigSource } from '../config/load-config.js';
import { findAddedMarkers } from '../plan/added-markers.js';
import { formatIssueRef, parseIssueRef, type IssueRef } from './issue-ref.js';
import { decidePrBranch, planCompletionActions, shouldPostProgress, type CompletionAction, type LifecycleSettings } from './lifecycle-actions.js';
import { buildCompletionSummary, buildFollowUp, buildProgressComment, buildPullRequest, oneLine } from './lifecycle-comments.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import * as gh from './lifecycle-gh.js';
import * as git from './lifecycle-git.js';
import { loadLifecycleState, newLifecycleState, saveLifecycleState, type IssueLifecycle, type LifecycleState } from './lifecycle-state.js';

export type { IssueLifecycle };
import { formatIsoTimestamp } from '../state/timestamps.js';
import type { RunRecorder } from '../run-record/run-recorder.js';
import { HeldState } from '../state/held-state.js';
import type { Run, RunSetup } from '../loop/run.js';

/** GITHUB_ISSUE checked before anything runs: an invalid REF is an error, not a silent run without it. */
export function resolveIssueRef(config: Pick<RalphConfig, 'GITHUB_ISSUE'>, source: ConfigSource): IssueRef | undefined {
  if (config.GITHUB_ISSUE.trim() === '') return undefined;
  const ref = parseIssueRef(config.GITHUB_ISSUE);
  if (ref) return ref;
  const shown = stripTerminalControls(config.GITHUB_ISSUE).slice(0, 80);
  const from = source.kind === 'flag' ? '--github-issue' : `GITHUB_ISSUE (${source.detail ?? source.kind})`;
  throw new RalphError('bad_issue_ref', `${from}: '${shown}' is not an issue reference`, {
    hint: 'use N, #N, owner/repo#N or https://github.com/owner/repo/issues/N',
  });
}

export function lifecycleSettings(config: RalphConfig): LifecycleSettings {
  return {
    commentProgress: config.COMMENT_PROGRESS,
    commentInterval: config.COMMENT_INTERVAL,
    closeSummary: config.CLOSE_SUMMARY,
    createPr: config.CREATE_PR,
    createFollowups: config.CREATE_FOLLOWUPS,
    autoClose: config.AUTO_CLOSE,
    labels: config.ADD_COMPLETION_LABELS,
  };
}

/**
 * Starts tracking the issue: its title from gh, HEAD as the start of the run. A restart of an
 * unfinished run on the same issue keeps its start and its counts.
 */
export async function openIssueLifecycle(run: RunSetup, recorder: RunRecorder | undefined, ref: IssueRef): Promise<IssueLifecycle> {
  const { deps, paths } = run;
  const now = formatIsoTimestamp(deps.clock.now());
  const previous = loadLifecycleState(paths, run.readOptions);
  const sameIssue =
    previous !== undefined &&
    previous.issue.number === ref.number &&
    previous.issue.repo === (ref.repo ?? '') &&
    previous.lifecycle.completion_detected_at === null &&
    git.isCommitId(previous.lifecycle.start_sha);
  const title = await gh.fetchIssueTitle(ref, ghContext(run));
  if (!title.ok) deps.logger.warn(`Could not read the title of issue ${formatIssueRef(ref)}: ${title.message}`);
  const knownTitle = title.ok ? title.value : sameIssue ? previous.issue.title : '';
  const branch = await git.readCurrentBranch(gitContext(run));
  // A run resumed from a state with no start branch (an older ralph's, the Bash tool's) starts on the branch it resumes on.
  const resumed = sameIssue && { ...previous, issue: { ...previous.issue, title: knownTitle }, updated_at: now };
  if (resumed && resumed.lifecycle.start_branch === undefined && branch !== undefined) resumed.lifecycle = { ...resumed.lifecycle, start_branch: branch };
  const state = resumed || newLifecycleState({ ...ref, title: knownTitle }, { sha: await git.readHeadSha(gitContext(run)), branch }, now);
  // The run it belongs to: a later run without --github-issue does not show this issue as its own.
  const runId = recorder?.record.run_id;
  const held = new HeldState(runId ? { ...state, run_id: runId } : state, (next) => save(run, next));
  held.flush();
  const lifecycle = { ref, settings: lifecycleSettings(run.config), state: held };
  // The title is the issue author's text: one line, so it cannot forge log lines of its own.
  const shownTitle = oneLine(stripTerminalControls(knownTitle));
  deps.logger.info(`🔗 GitHub issue lifecycle tracking ${formatIssueRef(ref)}${shownTitle ? `: ${shownTitle}` : ''}`);
  return lifecycle;
}

/** After a successful loop: the progress comment, when COMMENT_PROGRESS is on and the loop is due. */
export async function postProgressIfDue(run: Run, lifecycle: IssueLifecycle | undefined, loop: number): Promise<void> {
  if (!lifecycle || !shouldPostProgress(lifecycle.settings, loop)) return;
  const files = await git.listChangedFiles(lifecycle.state.value.lifecycle.start_sha, gitContext(run));
  const body = buildProgressComment({ loop, plan: run.state.plan.view, files, cost: run.state.spend.value.spend.run });
  const posted = await gh.commentOnIssue(lifecycle.ref, run.deps.redact(body), ghContext(run));
  if (!posted.ok) return warn(run, `Could not post the progress comment on issue ${formatIssueRef(lifecycle.ref)}: ${posted.message}`);
  run.deps.logger.info(`💬 Posted progress comment (loop #${loop}) on issue ${formatIssueRef(lifecycle.ref)}`);
  update(run, lifecycle, (l, now) => ({ ...l, last_progress_comment: now, progress_comments_posted: l.progress_comments_posted + 1 }));
}

/** When the run has ended: the completion actions, for a graceful completion only. */
export async function completeIssueLifecycle(run: Run, lifecycle: IssueLifecycle | undefined, lastAction: string): Promise<void> {
  const actions = lifecycle ? planCompletionActions(lifecycle.settings, lastAction) : [];
  if (!lifecycle || lastAction !== 'graceful_exit') return;
  update(run, lifecycle, (l, now) => ({ ...l, completion_detected_at: now }));
  const start = lifecycle.state.value.lifecycle.start_sha;
  const content = await readContentTree(run);
  const summary = buildCompletionSummary({ plan: run.state.plan.view, shortstat: await git.readShortstat(start, content, gitContext(run)) });
  for (const action of actions) await runCompletionAction(run, lifecycle, action, summary, content);
}

// The content as it is now, untracked files included, as a git tree; null when git could not.
async function readContentTree(run: Run): Promise<string | null> {
  return git.writeContentTree(gitContext(run));
}

async function runCompletionAction(run: Run, lifecycle: IssueLifecycle, action: CompletionAction, summary: string, content: string | null): Promise<void> {
  const { ref } = lifecycle;
  const ctx = ghContext(run);
  const issue = formatIssueRef(ref);
  const log = run.deps.logger;
  switch (action) {
    case 'summary': {
      const posted = await gh.commentOnIssue(ref, run.deps.redact(summary), ctx);
      if (posted.ok) log.info(`💬 Posted the completion summary on issue ${issue}`);
      else warn(run, `Could not post the completion summary on issue ${issue}: ${posted.message}`);
      return;
    }
    case 'pull-request':
      return openPullRequest(run, lifecycle, summary);
    case 'follow-up': {
      const markers = findAddedMarkers(await git.readAddedLines(lifecycle.state.value.lifecycle.start_sha, content, gitContext(run)));
      const followUp = buildFollowUp(ref.number, markers);
      if (!followUp) return log.info('No TODO/FIXME/HACK/XXX markers added: no follow-up issue');
      const created = await gh.createIssue(ref, { ...followUp, body: run.deps.redact(followUp.body), label: run.config.FOLLOWUP_LABEL }, ctx);
      if (!created.ok) return warn(run, `Could not create the follow-up issue: ${created.message}`);
      log.info(`📌 Created follow-up issue: ${created.value}`);
      update(run, lifecycle, (l) => ({ ...l, followups_created: [...l.followups_created, created.value] }));
      return;
    }
    case 'labels': {
      const labelled = await gh.addIssueLabels(ref, lifecycle.settings.labels, ctx);
      if (labelled.ok) log.info(`🏷️  Added labels '${lifecycle.settings.labels.join(',')}' to issue ${issue}`);
      else warn(run, `Could not add labels to issue ${issue}: ${labelled.message}`);
      return;
    }
    case 'close': {
      const closed = await gh.closeIssue(ref, ctx);
      if (!closed.ok) return warn(run, `Could not close issue ${issue}: ${closed.message}`);
      log.info(`✅ Closed issue ${issue}`);
      update(run, lifecycle, (l) => ({ ...l, issue_closed: true }));
      return;
    }
  }
}

async function openPullRequest(run: Run, lifecycle: IssueLifecycle, summary: string): Promise<void> {
  const gitCtx = gitContext(run);
  const branch = await git.readCurrentBranch(gitCtx);
  const remoteDefault = await gh.fetchDefaultBranch(lifecycle.ref, ghContext(run));
  const defaultBranch = remoteDefault.ok ? remoteDefault.value : await git.readOriginDefaultBranch(gitCtx);
  const startBranch = lifecycle.state.value.lifecycle.start_branch;
  const start = { branch: startBranch, onOrigin: branch !== undefined && branch !== startBranch && (await git.originHasBranch(branch, gitCtx)) };
  const decision = decidePrBranch(branch, defaultBranch, start);
  if (!decision.ok) return warn(run, `Skipping the pull request: ${decision.reason}. Run ralph on a feature branch to open one.`);
  run.deps.logger.info(`⬆️  Pushing '${decision.branch}' to origin for the pull request`);
  const pushed = await git.pushBranch(decision.branch, gitCtx);
  if (!pushed.ok) return warn(run, `Skipping the pull request: git push failed: ${pushed.message}`);
  const pr = buildPullRequest({ number: lifecycle.ref.number, title: lifecycle.state.value.issue.title }, summary, run.config.LINK_ISSUE);
  const created = await gh.createPullRequest(lifecycle.ref, { ...pr, body: run.deps.redact(pr.body), draft: run.config.DRAFT_PR }, ghContext(run));
  if (!created.ok) return warn(run, `Could not create the pull request: ${created.message}`);
  run.deps.logger.info(`🔀 Created pull request: ${created.value}`);
  update(run, lifecycle, (l) => ({ ...l, pr_created: true, pr_url: created.value }));
}

function update(run: Run, lifecycle: IssueLifecycle, change: (l: LifecycleState['lifecycle'], now: string) => LifecycleState['lifecycle']): void {
  const now = formatIsoTimestamp(run.deps.clock.now());
  const held = lifecycle.state;
  held.set({ ...held.value, lifecycle: change(held.value.lifecycle, now), updated_at: now });
}

function save(run: RunSetup, state: LifecycleState): void {
  try {
    saveLifecycleState(run.paths, state);
  } catch (error) {
    warn(run, `Could not save .github_lifecycle_state: ${(error as Error).message}`);
  }
}

// gh and git messages can quote what the remote said: cleaned as the logger's other lines.
function warn(run: RunSetup, message: string): void {
  run.deps.logger.warn(stripTerminalControls(message));
}

function ghContext(run: RunSetup): gh.GhContext {
  return { runner: run.deps.processRunner, cwd: run.paths.projectDir, env: run.deps.env };
}

function gitContext(run: RunSetup): git.LifecycleGitContext {
  const { projectDir } = run.paths;
  const controlFiles = [run.paths.ralphrc, run.promptFile]
    .map((file) => relative(projectDir, resolve(projectDir, file)))
    .filter((file) => file !== '' && !file.startsWith('..') && !isAbsolute(file));
  return { processRunner: run.deps.processRunner, cwd: projectDir, env: run.deps.env, controlFiles };
}
