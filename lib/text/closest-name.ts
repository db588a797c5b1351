// "Did you mean" for a mistyped name (a flag, a .ralphrc key): the known name within two
// edits, the closest first.

/** The candidate nearest to `name` within `maxDistance` edits (case as given), if any. */
export function findClosestName(name: string, candidates: Iterable<string>, maxDistance = 2): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const d = measureEditDistance(name, candidate, maxDistance);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function measureEditDistance(a: string, b: string, maxDistance: number): number {
  if (Math.abs(a.length - b.length) > maxDistance) return maxDistance + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}
