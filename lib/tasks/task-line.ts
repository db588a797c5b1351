// Task lines for .ralph/fix_plan.md. Titles come from outside (GitHub issues, beads, PRDs), so
// they are reduced to one line of plain text: they are only ever written to a file, never
// passed to a shell, and a newline in a title must not be able to start a second task.

export interface TaskItem {
  /** Source id shown in brackets, e.g. `#12` or `bd-a1`. */
  id?: string;
  title: string;
}

// Control characters (incl. CR, LF, tab, ESC) would break the one-task-per-line format or
// smuggle terminal escapes into the monitor.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line of plain text: control characters become spaces, runs of spaces collapse. */
export function toPlainTextLine(text: string): string {
  return text.replace(CONTROL_CHARS, ' ').replace(/ {2,}/g, ' ').trim();
}

/** `- [ ] [<id>] <title>` (or `- [ ] <title>` without an id). */
export function formatTaskLine(task: TaskItem): string {
  const title = toPlainTextLine(task.title);
  const id = task.id === undefined ? '' : toPlainTextLine(task.id);
  return id ? `- [ ] [${id}] ${title}` : `- [ ] ${title}`;
}

/** Number of task lines (lines starting with `- [`), as ralph-enable-ci counts them. */
export function countTaskLines(lines: readonly string[]): number {
  return lines.filter((line) => line.startsWith('- [')).length;
}
