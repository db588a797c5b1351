// What one loop's agent output says: completion claims, test-only work, stuck errors,
// questions, permission denials. Produces the Bash tool's `.response_analysis` object
// field for field, plus a few extra fields of ours. Pure: the
// measured progress and the clock come in as values (reply length is no signal: the Bash tool's
// text-mode "declining output" bonus is not given). Progress
// (`has_progress`, `files_modified`) is what ralph measured; what the agent reported is kept
// beside it (`files_modified_claimed`) and never replaces it.

import type { AgentResultSummary } from '../agents/agent-result.js';
import { detectErrors, errorSignature } from './error-detection.js';
import { summarizePermissionDenials } from './permission-denials.js';
import { detectQuestions } from './question-detection.js';
import { describeClaimDisagreement } from './progress-evidence.js';
import { parseRalphStatus, resolveExitSignal, stripRalphStatusBlocks, type RalphStatus } from './ralph-status.js';
import type { RalphStatusRecord, ResponseAnalysisFields, ResponseAnalysisFile } from '../state/schemas.js';
import { formatIsoTimestamp } from '../state/timestamps.js';

export { detectErrors, errorSignature } from './error-detection.js';
export { detectQuestions } from './question-detection.js';
export { summarizePermissionDenials } from './permission-denials.js';

export interface AnalyzeResponseOptions {
  agent: AgentResultSummary;
  loopNumber: number;
  /** Files whose content changed between the loop's start and end, as ralph measured it. */
  filesChanged: number;
  /** The loop's end content was new in this run (progress-evidence.ts). */
  newContent: boolean;
  /** ALLOWED_TOOLS entries, for the compound-command exemption (#243). */
  allowedTools: string[];
  /** Where the raw output was saved, as recorded in `output_file`. */
  outputFile: string;
  now: Date;
}

/**
 * The analysis is the `.response_analysis` file's own type (lib/state/schemas.ts): what is
 * produced here is saved, read back and shown without a conversion.
 */
export type ResponseAnalysis = ResponseAnalysisFile;
export type { RalphStatusRecord, ResponseAnalysisFields };

/** work_summary is the whole result text in JSON mode; keep the state file bounded. */
const MAX_WORK_SUMMARY = 16_000;
const STUCK_ERROR_COUNT = 5;

const COMPLETION_WORDS = /\b(?:done|complete|finished|all tasks complete|project complete|ready for review)\b/i;
const NO_WORK = /nothing to do|no changes|already implemented|up to date/i;
const TEST_WORK = /\b(?:running tests|npm test|bats|pytest|jest)\b/i;
const IMPLEMENTATION_WORK = /implementing|creating|writing|adding|function|class/i;
const SUMMARY_LINE = /summary|completed|implemented/i;
const TEST_WORK_TYPES = new Set(['TESTING', 'TEST_ONLY']);

export function analyzeResponse(options: AnalyzeResponseOptions): ResponseAnalysis {
  const { agent } = options;
  const block = parseRalphStatus(agent.resultText);
  const denials = summarizePermissionDenials(agent.permissionDenials, options.allowedTools);
  const claimed = block?.filesModified ?? agent.declared.filesModified ?? null;
  const base: ResponseAnalysisFields = {
    has_completion_signal: false,
    is_test_only: false,
    is_stuck: false,
    has_progress: options.newContent,
    files_modified: Math.max(0, options.filesChanged),
    confidence_score: 0,
    exit_signal: false,
    work_summary: '',
    output_length: agent.outputLength,
    has_permission_denials: denials.hasPermissionDenials,
    permission_denial_count: denials.count,
    denied_commands: denials.deniedCommands,
    has_compound_command_limitation: denials.hasCompoundCommandLimitation,
    compound_command_count: denials.compoundCommandCount,
    asking_questions: false,
    question_count: 0,
    is_error: agent.isError,
    error_count: 0,
    error_signature: errorSignature(agent.resultText),
    ralph_status: toRecord(block),
    tests_status: block?.testsStatus ?? null,
    // A top-level work_type (the flat format) is the one the Bash tool reads in JSON mode.
    work_type: agent.declared.workType ?? block?.workType ?? null,
    tasks_completed: block?.tasksCompletedThisLoop ?? null,
    files_modified_claimed: claimed,
    claim_disagreement: describeClaimDisagreement({
      claimedFiles: claimed,
      measuredFiles: Math.max(0, options.filesChanged),
      newContent: options.newContent,
    }),
  };
  const structured = agent.format !== 'text';
  const analysis = structured ? analyzeStructured(agent, block, base) : analyzeText(agent, block, base);
  return {
    loop_number: options.loopNumber,
    timestamp: formatIsoTimestamp(options.now.getTime()),
    output_file: options.outputFile,
    output_format: structured ? 'json' : 'text',
    analysis,
  };
}

// JSON / stream-json: the result's declared fields and the RALPH_STATUS
// block only; no prose heuristics, since documentation words caused false exits (#224).
function analyzeStructured(agent: AgentResultSummary, block: RalphStatus | null, a: ResponseAnalysisFields): ResponseAnalysisFields {
  const { declared } = agent;
  const explicit = declared.exitSignal ?? block?.exitSignal;
  const status = declared.status?.toUpperCase() ?? block?.status;
  const claim = !agent.isError && (explicit !== undefined ? explicit : status === 'COMPLETE');
  const errors = detectErrors(agent.resultText);
  const errorCount = Math.max(declared.errorCount ?? 0, errors.count);
  const questions = agent.isError ? { askingQuestions: false, questionCount: 0 } : detectQuestions(agent.resultText);
  let confidence = declared.confidence ?? 0;
  if (agent.hasResultField) confidence += 20;
  confidence += 5 * (declared.progressIndicatorCount ?? 0);
  const summary = agent.resultText !== '' ? agent.resultText : agent.errors.join('; ');
  return {
    ...a,
    has_completion_signal: claim,
    exit_signal: claim,
    is_test_only: !agent.isError && isTestWorkType(a.work_type),
    error_count: errorCount,
    is_stuck: errorCount > STUCK_ERROR_COUNT,
    confidence_score: claim ? 100 : Math.min(100, confidence + 50),
    asking_questions: questions.askingQuestions,
    question_count: questions.questionCount,
    work_summary: bound(summary),
  };
}

// Plain text, as the Bash tool reads it, with the Bash bugs fixed: words are matched whole and only
// outside the RALPH_STATUS block (its TASKS_COMPLETED_THIS_LOOP is not "complete"), and an
// explicit EXIT_SIGNAL decides the claim whatever the prose says.
function analyzeText(agent: AgentResultSummary, block: RalphStatus | null, a: ResponseAnalysisFields): ResponseAnalysisFields {
  const text = agent.resultText;
  const prose = stripRalphStatusBlocks(text);
  const proseLines = prose.split(/\r?\n/);
  let confidence = 0;
  let completion = false;
  let exitSignal = false;
  let summary = '';

  if (resolveExitSignal(block)) {
    completion = true;
    exitSignal = true;
    confidence = 100;
  }
  if (COMPLETION_WORDS.test(prose)) {
    completion = true;
    confidence += 10;
  }
  const testLines = proseLines.filter((line) => TEST_WORK.test(line)).length;
  const implementationLines = proseLines.filter((line) => IMPLEMENTATION_WORK.test(line)).length;
  let testOnly = testLines > 0 && implementationLines === 0;
  if (testOnly) summary = 'Test execution only, no implementation';
  if (isTestWorkType(a.work_type)) testOnly = true;
  const errors = detectErrors(text);
  if (NO_WORK.test(prose)) {
    completion = true;
    confidence += 15;
    summary = 'No work remaining';
  }
  const questions = detectQuestions(text);
  if (questions.askingQuestions) summary = 'Claude is asking questions instead of acting autonomously';
  if (a.has_progress) confidence += 20;
  if (summary === '') {
    const line = proseLines.find((l) => SUMMARY_LINE.test(l));
    summary = line?.trim().slice(0, 100) || block?.recommendation || 'Output analyzed, no explicit summary found';
  }
  if (block?.exitSignal !== undefined) {
    exitSignal = block.exitSignal;
    completion = block.exitSignal;
  } else if (!exitSignal) {
    // Heuristics alone need both a signal and confidence (#224).
    exitSignal = completion && confidence >= 70;
  }
  return {
    ...a,
    has_completion_signal: completion,
    exit_signal: exitSignal,
    is_test_only: testOnly,
    error_count: errors.count,
    is_stuck: errors.count > STUCK_ERROR_COUNT,
    confidence_score: Math.min(100, confidence),
    asking_questions: questions.askingQuestions,
    question_count: questions.questionCount,
    work_summary: summary,
  };
}

function isTestWorkType(workType: string | null): boolean {
  return workType !== null && TEST_WORK_TYPES.has(workType.toUpperCase());
}

function toRecord(block: RalphStatus | null): RalphStatusRecord | null {
  if (!block) return null;
  return {
    status: block.status ?? null,
    tasks_completed_this_loop: block.tasksCompletedThisLoop ?? null,
    files_modified: block.filesModified ?? null,
    tests_status: block.testsStatus ?? null,
    work_type: block.workType ?? null,
    exit_signal: block.exitSignal ?? null,
    recommendation: block.recommendation ?? null,
  };
}

function bound(text: string): string {
  return text.length > MAX_WORK_SUMMARY ? `${text.slice(0, MAX_WORK_SUMMARY)}…` : text;
}

/** The Bash tool's timestamp shape: `2026-11-30T04:48:55+00:00`. */
