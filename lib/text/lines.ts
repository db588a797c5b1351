// The first and the last line of a text that says something: what a one-line message shows of an
// error, a command's output or a tool's reply. Blank lines are skipped, the line is trimmed, and
// an empty or missing text gives ''. Pure.

function meaningfulLines(text: string | null | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function firstLine(text: string | null | undefined): string {
  return meaningfulLines(text)[0] ?? '';
}

export function lastLine(text: string | null | undefined): string {
  return meaningfulLines(text).at(-1) ?? '';
}
