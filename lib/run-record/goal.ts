// The run's goal, as the record states it: the open fix_plan.md items when there are any (a
// checklist), else the gist of PROMPT.md; its type says what "done" will be checked against —
// the checklist, the tests, both, or only the agent's word. Pure: the caller reads the files.

import { parseFixPlan } from '../plan/fix-plan.js';
import type { GoalType, RunRecord } from './record-schema.js';

export interface DeriveGoalOptions {
  promptText: string | null;
  fixPlanText: string | null;
  optionalSections?: string[];
  /** The gate's test command, when there is one. */
  testCommand: string | null;
}

const MAX_SUMMARY_CHARS = 400;
const ITEMS_NAMED = 5;

export function deriveGoal(options: DeriveGoalOptions): RunRecord['goal'] {
  const plan = options.fixPlanText === null ? null : parseFixPlan(options.fixPlanText, options.optionalSections);
  const openItems = plan ? plan.blocking.open : null;
  const hasChecklist = openItems !== null && openItems > 0;
  const hasTests = options.testCommand !== null && options.testCommand.trim() !== '';
  const type: GoalType = hasChecklist ? (hasTests ? 'checklist+tests' : 'checklist') : hasTests ? 'tests' : 'open-ended';
  if (hasChecklist && plan) {
    const named = plan.openItems.slice(0, ITEMS_NAMED).join('; ');
    const more = plan.openItems.length > ITEMS_NAMED ? `; and ${plan.openItems.length - ITEMS_NAMED} more` : '';
    return {
      type,
      summary: clip(`Complete ${openItems} open fix_plan.md item${openItems === 1 ? '' : 's'}: ${named}${more}`),
      source: 'fix_plan.md',
      open_items_at_start: openItems,
      test_command: hasTests ? options.testCommand : null,
    };
  }
  return {
    type,
    summary: clip(promptGist(options.promptText ?? '')),
    source: 'PROMPT.md',
    open_items_at_start: openItems,
    test_command: hasTests ? options.testCommand : null,
  };
}

// The first heading and the first paragraph after it, as one line.
function promptGist(markdown: string): string {
  const lines = markdown.split(/\r?\n/).map((l) => l.trim());
  const heading = lines.find((l) => /^#{1,6}\s+\S/.test(l))?.replace(/^#+\s+/, '') ?? '';
  const start = lines.findIndex((l) => l !== '' && !l.startsWith('#'));
  const paragraph: string[] = [];
  for (let i = Math.max(0, start); start >= 0 && i < lines.length && lines[i] !== '' && !lines[i]!.startsWith('#'); i++) paragraph.push(lines[i]!);
  const text = [heading, paragraph.join(' ')].filter((t) => t !== '').join(': ');
  return text || 'Work through PROMPT.md';
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_SUMMARY_CHARS ? `${one.slice(0, MAX_SUMMARY_CHARS - 1)}…` : one;
}
