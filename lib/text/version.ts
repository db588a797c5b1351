// Dotted version numbers (`2.1.332`) compared part by part, numerically: the agent CLIs'
// versions (minimum, update check). cli/require-node.ts repeats it, as it must stand alone. Pure.

/** -1, 0 or 1 as a is older than, the same as or newer than b; missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** The first dotted version in a CLI's output (`2.1.332 (Claude Code)` → `2.1.332`); undefined: none. */
export function parseVersion(output: string): string | undefined {
  return /(\d+\.\d+\.\d+)/.exec(output)?.[1];
}
