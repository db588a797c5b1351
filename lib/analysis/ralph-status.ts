// The RALPH_STATUS block: the agent's structured report at the end of each loop, as
// PROMPT.md asks for it. Both the `---RALPH_STATUS---` … `---END_RALPH_STATUS---` form and the YAML-like
// `RALPH_STATUS:` header form (#262) are read, every field of it. Pure.

export interface RalphStatus {
  /** IN_PROGRESS | COMPLETE | BLOCKED (upper-cased). */
  status: string | undefined;
  tasksCompletedThisLoop: number | undefined;
  filesModified: number | undefined;
  /** PASSING | FAILING | NOT_RUN (upper-cased). */
  testsStatus: string | undefined;
  /** IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING (upper-cased). */
  workType: string | undefined;
  /** undefined when the block has no EXIT_SIGNAL line or its value is neither true nor false. */
  exitSignal: boolean | undefined;
  recommendation: string | undefined;
}

// The gate must start a line (after optional whitespace), so prose that mentions
// "the RALPH_STATUS: block" mid-sentence is not a block.
const FENCE_START = /^\s*---RALPH_STATUS---\s*$/;
const FENCE_END = /^\s*---END_RALPH_STATUS---\s*$/;
const YAML_START = /^\s*RALPH_STATUS:\s*$/;
// `KEY: value`, tolerating a list bullet and markdown bold around the key.
const FIELD = /^\s*(?:[-*]\s+)?\**([A-Za-z_]+)\**\s*:\s*(.*?)\s*$/;

interface BlockSpan {
  start: number;
  /** Index after the last line of the block. */
  end: number;
  /** Index of the closing fence line, when there is one. */
  closing: number | null;
}

/** The last RALPH_STATUS block in text (a later block corrects an earlier one), or null. */
export function parseRalphStatus(text: string): RalphStatus | null {
  const lines = splitLines(text);
  const spans = findBlocks(lines);
  const last = spans[spans.length - 1];
  if (!last) return null;
  return readFields(lines.slice(last.start + 1, last.closing ?? last.end));
}

/** The text without its RALPH_STATUS blocks, so prose heuristics don't read the block. */
export function stripRalphStatusBlocks(text: string): string {
  const lines = splitLines(text);
  const spans = findBlocks(lines);
  if (spans.length === 0) return text;
  const keep: string[] = [];
  let next = 0;
  for (const span of spans) {
    keep.push(...lines.slice(next, span.start));
    next = span.end;
  }
  keep.push(...lines.slice(next));
  return keep.join('\n');
}

/**
 * Whether the block claims the work is finished: an explicit EXIT_SIGNAL decides (an explicit
 * false beats STATUS: COMPLETE, #146); without one, STATUS: COMPLETE counts as true.
 */
export function resolveExitSignal(status: RalphStatus | null): boolean {
  if (!status) return false;
  if (status.exitSignal !== undefined) return status.exitSignal;
  return status.status === 'COMPLETE';
}

function findBlocks(lines: string[]): BlockSpan[] {
  const spans: BlockSpan[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (FENCE_START.test(line)) {
      let j = i + 1;
      while (j < lines.length && !FENCE_END.test(lines[j] ?? '')) j++;
      const closed = j < lines.length;
      spans.push({ start: i, end: closed ? j + 1 : j, closing: closed ? j : null });
      i = closed ? j + 1 : j;
    } else if (YAML_START.test(line)) {
      let j = i + 1;
      while (j < lines.length && FIELD.test(lines[j] ?? '') && !YAML_START.test(lines[j] ?? '')) j++;
      spans.push({ start: i, end: j, closing: null });
      i = j;
    } else {
      i++;
    }
  }
  return spans;
}

function readFields(lines: string[]): RalphStatus {
  const status: RalphStatus = {
    status: undefined,
    tasksCompletedThisLoop: undefined,
    filesModified: undefined,
    testsStatus: undefined,
    workType: undefined,
    exitSignal: undefined,
    recommendation: undefined,
  };
  for (const line of lines) {
    const match = FIELD.exec(line);
    if (!match) continue;
    // Keys are matched whole, so TESTS_STATUS is never read as STATUS (a Bash-version bug).
    const key = (match[1] ?? '').toUpperCase();
    const value = unquote(match[2] ?? '');
    switch (key) {
      case 'STATUS':
        status.status = upperWord(value);
        break;
      case 'TASKS_COMPLETED_THIS_LOOP':
        status.tasksCompletedThisLoop = leadingInt(value);
        break;
      case 'FILES_MODIFIED':
        status.filesModified = leadingInt(value);
        break;
      case 'TESTS_STATUS':
        status.testsStatus = upperWord(value);
        break;
      case 'WORK_TYPE':
        status.workType = upperWord(value);
        break;
      case 'EXIT_SIGNAL':
        status.exitSignal = parseBool(value);
        break;
      case 'RECOMMENDATION':
        status.recommendation = value === '' ? undefined : value;
        break;
    }
  }
  return status;
}

function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

function unquote(value: string): string {
  const v = value.replace(/^\*+|\*+$/g, '').trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'" || v[0] === '`') && v.endsWith(v[0])) {
    return v.slice(1, -1).trim();
  }
  return v;
}

// `STATUS: COMPLETE - all done` is COMPLETE: the first word is the value.
function upperWord(value: string): string | undefined {
  const match = /^[A-Za-z_]+/.exec(value);
  return match ? match[0].toUpperCase() : undefined;
}

function leadingInt(value: string): number | undefined {
  const match = /^\d+/.exec(value);
  return match ? Number(match[0]) : undefined;
}

function parseBool(value: string): boolean | undefined {
  const v = value.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}
