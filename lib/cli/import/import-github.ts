// ralph-import's GitHub flow: find the issue (by number, or by filters and a
// selection strategy), build its requirements document, score its completeness, and generate
// an implementation plan when asked or when the issue is thin.

import type { OneShotAgent } from '../../agent-run/one-off-call.js';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { RalphError } from '../../errors.js';
import type { ProcessRunner } from '../../platform/process.js';
import { generatePlan } from '../../project/generate-plan.js';
import { analyzeIssueCompleteness } from '../../project/issue-completeness.js';
import { appendGeneratedPlan, buildIssueDocument, slugifyIssueTitle } from '../../project/issue-document.js';
import { applyClientFilters, selectIssue } from '../../project/issue-selection.js';
import { checkGhReady } from '../../tasks/gh-cli.js';
import { CANDIDATE_LIMIT, listIssueCandidates, viewIssue, type IssueSummary } from '../../tasks/github-issues.js';
import { toPlainTextLine } from '../../tasks/task-line.js';
import type { ImportArgs } from './import-args.js';
import { formatCandidateTable, formatCompleteness } from './messages-import.js';
import type { Prompter } from '../prompts.js';

export interface GitHubImportContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  runner: ProcessRunner;
  prompter: Prompter;
  /** stdin is a terminal (plan approval asks only then). */
  interactiveInput: boolean;
  /** The agent that writes a plan for a thin issue (found when first asked for). */
  agent: () => Promise<OneShotAgent>;
  timeoutMs: number;
  now: () => number;
  say(text: string): void;
  warn(text: string): void;
}

export type GitHubImportPlan =
  | { kind: 'dry-run' }
  | { kind: 'import'; projectName: string; document: string; documentFileName: string; extraSpecs: Record<string, string> };

export async function prepareGitHubImport(args: ImportArgs, ctx: GitHubImportContext): Promise<GitHubImportPlan> {
  const cli = { runner: ctx.runner, cwd: ctx.cwd, env: ctx.env };
  const ready = await checkGhReady(cli);
  if (!ready.ok) throw new RalphError('gh_unavailable', ready.failure.message, { hint: ready.failure.hint });

  let number = args.githubIssue;
  if (number === undefined) {
    const chosen = await chooseIssue(args, ctx);
    if (chosen === undefined) return { kind: 'dry-run' };
    number = chosen.number;
  }
  const viewed = await viewIssue(number, args.query.repo, cli);
  if (!viewed.ok) throw new RalphError('gh_issue_failed', viewed.message, { hint: viewed.hint });
  const issue = viewed.issue;
  ctx.say(`Importing issue #${issue.number}: ${toPlainTextLine(issue.title)}`);
  const projectName = args.positional[0] ?? slugifyIssueTitle(issue.title, issue.number);
  let document = buildIssueDocument(issue, args.includeComments);

  const completeness = analyzeIssueCompleteness(issue.body, args.completenessThreshold);
  for (const line of formatCompleteness(completeness)) ctx.say(line);
  if (args.generatePlan === false && completeness.recommendation === 'generate_plan') {
    throw new RalphError(
      'issue_incomplete',
      `issue #${issue.number} scores ${completeness.score}/100, below the threshold ${args.completenessThreshold}, and --no-generate-plan was given`,
      {
        hint: 'allow plan generation, or lower --completeness-threshold',
      },
    );
  }
  const extraSpecs: Record<string, string> = {};
  if (args.generatePlan === true || (args.generatePlan === undefined && completeness.recommendation === 'generate_plan')) {
    const plan = await createApprovedPlan(document, resolve(ctx.cwd, projectName), args, ctx);
    document = appendGeneratedPlan(document, plan);
    extraSpecs['implementation-plan.md'] = `${plan.trim()}\n`;
  }
  return { kind: 'import', projectName, document, documentFileName: `${projectName}-issue-${issue.number}.md`, extraSpecs };
}

/** The issue the filters and strategy pick; undefined after a --dry-run listing. */
async function chooseIssue(args: ImportArgs, ctx: GitHubImportContext): Promise<IssueSummary | undefined> {
  const listed = await listIssueCandidates(args.query, { runner: ctx.runner, cwd: ctx.cwd, env: ctx.env });
  if (!listed.ok) throw new RalphError('gh_list_failed', listed.message, { hint: listed.hint });
  const clientFiltered = args.excludeLabels.length > 0 || args.titlePattern !== undefined;
  if (listed.issues.length >= CANDIDATE_LIMIT) {
    if (clientFiltered) {
      throw new RalphError('too_many_candidates', `the filters match ${CANDIDATE_LIMIT}+ issues, too many to filter by title or excluded labels reliably`, {
        hint: 'narrow the query with --github-search, --github-label or --github-milestone',
      });
    }
    ctx.warn(`only the first ${CANDIDATE_LIMIT} matching issues were considered`);
  }
  const candidates = applyClientFilters(listed.issues, { excludeLabels: args.excludeLabels, titlePattern: args.titlePattern });
  if (candidates.length === 0) {
    throw new RalphError('no_matching_issues', 'No issues match the specified filters', { hint: 'check the filters with --dry-run' });
  }
  if (args.dryRun) {
    for (const line of formatCandidateTable(candidates)) ctx.say(line);
    ctx.say(`${candidates.length} issue(s) match the filters.`);
    if (args.select === 'interactive') ctx.say('Would ask which issue to import (strategy: interactive).');
    else ctx.say(`Would select: #${selectIssue(candidates, args.select)?.number} (strategy: ${args.select})`);
    ctx.say('Dry run: nothing was imported');
    return undefined;
  }
  if (candidates.length === 1 || args.select !== 'interactive') return selectIssue(candidates, args.select === 'priority' ? 'priority' : 'first');
  return pickInteractively(candidates, ctx);
}

async function pickInteractively(candidates: readonly IssueSummary[], ctx: GitHubImportContext): Promise<IssueSummary> {
  ctx.prompter.say('Matching issues:');
  candidates.forEach((issue, i) => ctx.prompter.say(`  ${i + 1}) #${issue.number} ${toPlainTextLine(issue.title)}`));
  for (;;) {
    const answer = await ctx.prompter.readAnswer(`Import which issue? (1-${candidates.length}, q to cancel): `);
    if (answer === undefined) {
      ctx.warn(`no answer (end of input); importing the first match, #${candidates[0]!.number}`);
      return candidates[0]!;
    }
    if (/^q(uit)?$/i.test(answer)) throw new RalphError('import_cancelled', 'Import cancelled');
    const index = Number(answer) - 1;
    if (Number.isInteger(index) && candidates[index]) return candidates[index];
    ctx.prompter.say(`Please enter a number from 1 to ${candidates.length}, or q.`);
  }
}

// The plan call runs in the project directory (created here, before ralph-setup fills it), so
// Claude never works in, or reads, the directory the user happened to start ralph-import from.
async function createApprovedPlan(document: string, projectDir: string, args: ImportArgs, ctx: GitHubImportContext): Promise<string> {
  const created = !existsSync(projectDir);
  mkdirSync(projectDir, { recursive: true });
  try {
    return await generateApprovedPlan(document, projectDir, args, ctx);
  } catch (error) {
    if (created) removeIfEmpty(projectDir);
    throw error;
  }
}

async function generateApprovedPlan(document: string, projectDir: string, args: ImportArgs, ctx: GitHubImportContext): Promise<string> {
  ctx.say('Generating an implementation plan with Claude Code…');
  const plan = await generatePlan({
    document,
    model: args.planModel,
    agent: await ctx.agent(),
    cwd: projectDir,
    env: ctx.env,
    runner: ctx.runner,
    timeoutMs: ctx.timeoutMs,
    now: ctx.now,
  });
  if (!plan.ok) throw new RalphError('plan_failed', `plan generation failed: ${plan.message}`);
  if (args.autoApprove || !ctx.interactiveInput) return plan.text;
  const lines = plan.text.split(/\r?\n/);
  ctx.prompter.say(lines.slice(0, 25).join('\n'));
  if (lines.length > 25) ctx.prompter.say(`… (${lines.length - 25} more lines)`);
  if (!(await ctx.prompter.confirm('Accept generated plan?', true))) throw new RalphError('plan_rejected', 'Generated plan rejected; nothing was imported');
  return plan.text;
}

function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty (the plan call wrote something): keep it
  }
}
