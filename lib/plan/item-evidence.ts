// What evidence closes a plan item, read from the item's own text as ralph remembers it (the
// text it had when ralph first saw it open, not what the agent rewrote it to). Most items need
// new content; three kinds of item ask for something else:
//
// - an item that needs no code change ("Verify …", "Check that …", "Confirm …") is closed by the
//   verification gate passing in the loop that ticks it (loop/verification-step.ts);
// - an item that asks for a revert ("Revert the faster parser commit") is closed by a loop that
//   changed the content, even back to a state seen before: that is what a revert does;
// - an item that names one of ralph's control files (".ralph/AGENT.md", "fix_plan.md") makes the
//   file's changes count as the loop's content (analysis/loop-progress.ts).
//
// An open item the agent removed while it added open items sharing a word with it was split
// (or reworded): the new items carry its work. Pure.

// The first word(s) of an item that asks only to look: the gate's pass is its evidence.
const NO_CODE_CHANGE = /^(?:verify|check|confirm|validate|ensure|make sure|double[- ]check|smoke[- ]test|re-?run the tests?)\b/i;
const REVERT = /\b(?:revert|roll(?:ed)?[- ]?back|undo|back(?:ed)? out)\b/i;
// Words too common to say two items are about the same thing.
const COMMON = new Set([
  'the',
  'and',
  'add',
  'for',
  'with',
  'from',
  'into',
  'that',
  'this',
  'make',
  'write',
  'update',
  'fix',
  'use',
  'all',
  'new',
  'part',
  'step',
  'item',
  'todo',
]);

/** The item asks to verify something, not to change it. */
export function needsNoCodeChange(text: string): boolean {
  return NO_CODE_CHANGE.test(stripMarkup(text));
}

/** The item asks to revert (undo, roll back) a change. */
export function asksForRevert(text: string): boolean {
  return REVERT.test(text);
}

/** The item names the file `fileName` (a base name such as `AGENT.md`), case-insensitive. */
export function namesFile(text: string, fileName: string): boolean {
  return fileNamePattern(fileName).test(text);
}

// One pattern per file name, made once: every open item of a long plan is asked each loop.
const FILE_NAME_PATTERNS = new Map<string, RegExp>();

function fileNamePattern(fileName: string): RegExp {
  let pattern = FILE_NAME_PATTERNS.get(fileName);
  if (!pattern) {
    const escaped = fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`(?:^|[\\s/\`'"(])${escaped}(?=$|[\\s\`'"),.:;])`, 'i');
    FILE_NAME_PATTERNS.set(fileName, pattern);
  }
  return pattern;
}

/** Two items share a word that says what they are about (their normalised texts). */
export function shareTopic(a: string, b: string): boolean {
  const words = new Set(topicWords(a));
  return topicWords(b).some((word) => words.has(word));
}

function topicWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((word) => word.length >= 4 && !COMMON.has(word));
}

function stripMarkup(text: string): string {
  return text.replace(/^[\s*_`~#>]+/, '');
}
