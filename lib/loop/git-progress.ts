// Progress from git: which files a loop changed. A snapshot is taken before the agent runs and
// compared after, so a tree that was already dirty does not count as progress every loop
// (the Bash tool counted any modified file). Commits made during the loop, staged, unstaged
// and untracked non-ignored files all count; ralph's own state under .ralph/ never does.

import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessRunner } from '../platform/process.js';

export interface GitSnapshot {
  isRepo: boolean;
  head: string;
  /** path → "status|mtimeMs|size" for every dirty or untracked path at snapshot time. */
  dirty: Map<string, string>;
}

export interface GitProgressOptions {
  projectDir: string;
  processRunner: ProcessRunner;
}

/** ralph's own files: never the agent's progress. Control files the agent edits (fix_plan.md, specs/) do count. */
export function isRalphStatePath(path: string): boolean {
  if (!path.startsWith('.ralph/')) return false;
  const rest = path.slice('.ralph/'.length);
  if (rest.startsWith('.') || rest.startsWith('logs/') || rest.startsWith('sessions/')) return true;
  return ['status.json', 'progress.json', 'live.log'].includes(rest);
}

export async function takeGitSnapshot(options: GitProgressOptions): Promise<GitSnapshot> {
  const { projectDir, processRunner } = options;
  // One git call per snapshot (porcelain v2 carries HEAD in its branch header): spawning git
  // is most of the loop's own cost.
  const status = await processRunner.run(
    'git',
    ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--no-renames'],
    { cwd: projectDir },
  );
  if (status.spawnError || status.code !== 0) return { isRepo: false, head: '', dirty: new Map() };
  let head = '';
  const dirty = new Map<string, string>();
  for (const entry of status.stdout.split('\0')) {
    const parsed = parseStatusEntry(entry);
    if (!parsed) continue;
    if (parsed.head !== undefined) {
      head = parsed.head;
      continue;
    }
    if (isRalphStatePath(parsed.path)) continue;
    dirty.set(parsed.path, `${parsed.code}|${fingerprint(join(projectDir, parsed.path))}`);
  }
  return { isRepo: true, head, dirty };
}

/** One NUL-separated entry of `git status --porcelain=v2 --branch`. */
function parseStatusEntry(entry: string): { head: string } | { head?: undefined; code: string; path: string } | undefined {
  if (entry.startsWith('# branch.oid ')) {
    const oid = entry.slice('# branch.oid '.length).trim();
    return { head: oid === '(initial)' ? '' : oid };
  }
  const kind = entry[0];
  // Ordinary: "1 XY sub mH mI mW hH hI path"; unmerged: "u XY sub m1 m2 m3 mW h1 h2 h3 path".
  const fieldsBeforePath = kind === '1' ? 8 : kind === 'u' ? 10 : kind === '?' ? 1 : -1;
  if (fieldsBeforePath < 0) return undefined;
  let at = 0;
  for (let i = 0; i < fieldsBeforePath; i++) at = entry.indexOf(' ', at) + 1;
  if (at <= 0) return undefined;
  return { code: kind === '?' ? '??' : entry.slice(2, 4), path: entry.slice(at) };
}

/** Files changed between two snapshots: committed since `before.head`, or dirty state that changed. */
export async function listChangedFiles(
  before: GitSnapshot,
  after: GitSnapshot,
  options: GitProgressOptions,
): Promise<string[]> {
  if (!before.isRepo || !after.isRepo) return [];
  const changed = new Set<string>();
  if (after.head && after.head !== before.head) {
    const range = before.head ? [`${before.head}..${after.head}`] : [after.head];
    const diff = await options.processRunner.run('git', ['log', '--format=', '--name-only', ...range], {
      cwd: options.projectDir,
    });
    if (diff.code === 0) {
      for (const line of diff.stdout.split('\n')) if (line && !isRalphStatePath(line)) changed.add(line);
    }
  }
  for (const [path, state] of after.dirty) if (before.dirty.get(path) !== state) changed.add(path);
  for (const path of before.dirty.keys()) if (!after.dirty.has(path) && after.head === before.head) changed.add(path);
  return [...changed].sort();
}

function fingerprint(absPath: string): string {
  try {
    const st = lstatSync(absPath);
    return `${st.mtimeMs}|${st.size}`;
  } catch {
    return 'missing';
  }
}
