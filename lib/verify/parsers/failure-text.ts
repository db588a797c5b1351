// Text helpers shared by the parsers: ANSI colour codes out, and the part of a failure's output
// worth showing the agent (the error lines, not the stack trace).

// CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks).
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

const STACK_LINE = /^\s*(at\s|\d+:\s|stack backtrace:|note: (run with|Some details))/;

/** The failure's message: its lines up to the first stack-trace line, blank lines dropped. */
export function failureMessage(text: string, maxLines = 6): string {
  const lines: string[] = [];
  for (const raw of stripAnsi(text).split(/\r?\n/)) {
    if (STACK_LINE.test(raw)) break;
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    lines.push(line.trim());
    if (lines.length >= maxLines) break;
  }
  return lines.join('\n');
}

/** The last non-empty lines of some output (for a command that printed nothing parseable). */
export function lastLines(text: string, count: number): string {
  const lines = stripAnsi(text)
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  return lines.slice(-count).join('\n');
}
