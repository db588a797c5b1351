// TODO / FIXME / HACK / XXX markers on lines a run added, read from `git diff -U0` output:
// one `<file>: <marker text>` per marker line, deduplicated, in order of appearance (the Bash
// tool's scan_for_todos, which matched case-insensitively from the first marker on the line).

const MARKER = /TODO|FIXME|HACK|XXX/i;

export function findAddedMarkers(diff: string): string[] {
  const found = new Set<string>();
  let file = '';
  // Between `diff --git` and the first `@@` are headers: an added line reading `++ x` shows as
  // `+++ x` in a hunk and is content, not a file name.
  let inHeader = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      inHeader = true;
      continue;
    }
    if (line.startsWith('@@')) {
      inHeader = false;
      continue;
    }
    if (inHeader && line.startsWith('+++ ')) {
      const target = line.slice(4).replace(/\t.*$/, '');
      file = target === '/dev/null' ? '' : target.replace(/^b\//, '');
      continue;
    }
    if (inHeader || !line.startsWith('+')) continue;
    const added = line.slice(1);
    const at = added.search(MARKER);
    if (at < 0) continue;
    const text = added.slice(at).replace(/\s+$/, '');
    found.add(file ? `${file}: ${text}` : text);
  }
  return [...found];
}
