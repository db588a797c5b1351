// Adds Ralph's ignore patterns to a user's existing .gitignore without touching their lines.

const MERGE_HEADER = '# Added by Ralph: state and logs that must not be committed';

/** existing plus every pattern of template it lacks, under one header; unchanged if none. */
export function mergeGitignore(existing: string, template: string): string {
  const have = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = template
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !have.has(line));
  if (missing.length === 0) return existing;
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  return `${existing}${separator}\n${MERGE_HEADER}\n${missing.join('\n')}\n`;
}
