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
  const head = await processRunner.run('git', ['rev-parse', 'HEAD'], { cwd: projectDir });
  if (head.spawnError || (head.code !== 0 && !/unknown revision|ambiguous argument 'HEAD'/.test(head.stderr))) {
    return { isRepo: false, head: '', dirty: new Map() };
  }
  const status = await processRunner.run(
    'git',
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'],
    { cwd: projectDir },
  );
  if (status.code !== 0) return { isRepo: false, head: '', dirty: new Map() };
  const dirty = new Map<string, string>();
  for (const entry of status.stdout.split('\0')) {
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    if (isRalphStatePath(path)) continue;
    dirty.set(path, `${code}|${fingerprint(join(projectDir, path))}`);
  }
  return { isRepo: true, head: head.code === 0 ? head.stdout.trim() : '', dirty };
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
