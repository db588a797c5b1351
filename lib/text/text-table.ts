// A plain-text table: each column as wide as its widest cell, two spaces between columns, no
// trailing spaces (pure).

export function alignColumns(table: ReadonlyArray<readonly string[]>): string[] {
  const widths = (table[0] ?? []).map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)));
  return table.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
