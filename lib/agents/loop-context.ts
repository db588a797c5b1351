// The context ralph gives the agent each loop: the Bash tool's one-line
// prefix, then, unlike the Bash tool's 500-character cut, the things the agent must not miss:
// the open fix_plan.md items when it claimed completion too early, and any extra sections
// (failing tests, …), within a fixed budget. Unlike the Bash tool, which passed it as
// --append-system-prompt, it goes on stdin after the prompt (appendLoopContext): argv is
// readable by every local user, and Claude CLI 2.1.x ignores a new --append-system-prompt on a
// resumed session (it reuses the system prompt of the session's first request). Pure.

import type { PlanView } from '../plan/fix-plan.js';
import type { ResponseAnalysis } from '../analysis/response-analysis.js';
import { stripRalphStatusBlocks } from '../analysis/ralph-status.js';

export const MAX_LOOP_CONTEXT = 4000;
const PREVIOUS_SUMMARY_CHARS = 200;
const MAX_ITEM_CHARS = 200;

export const QUESTIONS_WARNING =
  'IMPORTANT: You asked questions in the previous loop. This is a headless automation loop with no human to answer. Do NOT ask questions. Choose the most conservative/safe default and proceed autonomously.';

export interface LoopContextOptions {
  loop: number;
  /** fix_plan.md parsed, or null when there is none ("Remaining tasks" is then omitted). */
  plan: PlanView | null;
  /**
   * The plan and AGENT.md when FIX_PLAN_FILE / AGENT_FILE move them (project-relative): the
   * agent is told, since PROMPT.md may still name the defaults.
   */
  files?: { plan?: string; agent?: string };
  /** Circuit breaker state (CLOSED | HALF_OPEN | OPEN), or null when there is no state file. */
  breakerState: string | null;
  previousAnalysis: ResponseAnalysis | null;
  /** The exit gate's completion conflict from the previous loop. */
  openItemsConflict?: { openItems: string[]; count?: number; limit?: number };
  /** More sections, most important first; cut to fit the budget. */
  extraSections?: string[];
}

/** The line that opens the loop context after the prompt on stdin. */
export const LOOP_CONTEXT_HEADING = '## Ralph loop context';

/** The prompt as the agent reads it: PROMPT.md, then the loop context in its own section. */
export function appendLoopContext(prompt: string, context: string | undefined): string {
  if (!context || context.trim() === '') return prompt;
  // The prompt stays byte for byte; the section starts after a blank line.
  const gap = prompt.endsWith('\n') ? '\n' : '\n\n';
  return `${prompt}${gap}---\n${LOOP_CONTEXT_HEADING}\n\n${context}\n`;
}

export function buildLoopContext(options: LoopContextOptions): string {
  const sections = [buildPrefix(options)];
  let used = sections[0]?.length ?? 0;
  const conflict = options.openItemsConflict;
  if (conflict && conflict.openItems.length > 0) {
    const section = buildConflictSection(conflict, options.files?.plan ?? 'fix_plan.md', MAX_LOOP_CONTEXT - used - 2);
    if (section) {
      sections.push(section);
      used += section.length + 2;
    }
  }
  for (const extra of options.extraSections ?? []) {
    const text = extra.trim();
    const room = MAX_LOOP_CONTEXT - used - 2;
    if (text === '' || room < 20) continue;
    const fitted = text.length > room ? `${text.slice(0, room - 1)}…` : text;
    sections.push(fitted);
    used += fitted.length + 2;
  }
  return sections.join('\n\n');
}

function buildPrefix(options: LoopContextOptions): string {
  const parts = [`Loop #${options.loop}.`];
  // Remaining = blocking open items, the count the exit gate waits for; optional ones apart.
  const plan = options.plan;
  if (plan) parts.push(`Remaining tasks: ${plan.blocking.open}${plan.optional.open > 0 ? ` (+${plan.optional.open} optional)` : ''}.`);
  if (options.files?.plan) parts.push(`Task list: ${options.files.plan}.`);
  if (options.files?.agent) parts.push(`Build and run notes: ${options.files.agent}.`);
  if (options.breakerState && options.breakerState !== 'CLOSED') {
    parts.push(`Circuit breaker: ${options.breakerState}.`);
  }
  const previous = options.previousAnalysis?.analysis;
  if (previous) {
    const summary = previousSummary(options.previousAnalysis);
    if (summary) parts.push(`Previous: ${summary}`);
    if (previous.asking_questions) parts.push(QUESTIONS_WARNING);
  }
  return parts.join(' ');
}

// The result text with its status block removed and whitespace folded, so 200 characters
// carry the agent's prose rather than the block's field names.
function previousSummary(analysis: ResponseAnalysis | null): string {
  if (!analysis) return '';
  const prose = stripRalphStatusBlocks(analysis.analysis.work_summary).replace(/\s+/g, ' ').trim();
  const text = prose || analysis.analysis.ralph_status?.recommendation || '';
  return cut(text, PREVIOUS_SUMMARY_CHARS);
}

function buildConflictSection(conflict: NonNullable<LoopContextOptions['openItemsConflict']>, planName: string, room: number): string | null {
  const n = conflict.openItems.length;
  const head = `You signalled completion, but ${planName} still has ${n} open item${n === 1 ? '' : 's'}:`;
  const counter =
    conflict.count !== undefined && conflict.limit !== undefined
      ? ` (completion claim ${conflict.count} of ${conflict.limit} against open items; at ${conflict.limit} the run stops)`
      : '';
  const tail = `Finish them and check them off in ${planName} before you set EXIT_SIGNAL: true${counter}.`;
  const reserve = head.length + tail.length + 40;
  if (room < reserve) return null;
  const lines = [head];
  let size = head.length + tail.length + 2;
  let shown = 0;
  for (const item of conflict.openItems) {
    const line = `- ${cut(item.replace(/\s+/g, ' ').trim(), MAX_ITEM_CHARS)}`;
    if (size + line.length + 1 + 30 > room) break;
    lines.push(line);
    size += line.length + 1;
    shown++;
  }
  if (shown < n) lines.push(`- … and ${n - shown} more`);
  lines.push(tail);
  return lines.join('\n');
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Don't leave half a surrogate pair at the end.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}
