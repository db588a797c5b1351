// ralph-migrate: moves a project from the old flat layout (PROMPT.md,
// @fix_plan.md, specs/, logs/ … at the root) into .ralph/, after copying everything it is
// about to move into .ralph_backup_<stamp>/. Running it again finds nothing to do.

import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { backupDirName } from './file-backup.js';

export type MigrateResult = { kind: 'already-migrated' } | { kind: 'nothing-to-migrate' } | { kind: 'migrated'; backupDir: string; moved: string[] };

export const ROOT_STATE_FILES = [
  '.call_count',
  '.last_reset',
  '.exit_signals',
  '.response_analysis',
  '.circuit_breaker_state',
  '.circuit_breaker_history',
  '.claude_session_id',
  '.ralph_session',
  '.ralph_session_history',
  '.json_parse_result',
  '.last_output_length',
  'status.json',
] as const;

export function isAlreadyMigrated(dir: string): boolean {
  const ralph = join(dir, '.ralph');
  return existsSync(join(ralph, 'PROMPT.md')) && (existsSync(join(ralph, 'fix_plan.md')) || existsSync(join(ralph, '@fix_plan.md')));
}

/** Root files and dirs that mark a flat-layout project, relative to dir. */
export function findFlatLayoutItems(dir: string): string[] {
  const at = (path: string) => existsSync(join(dir, path));
  const items = ['PROMPT.md', '@fix_plan.md', 'fix_plan.md', '@AGENT.md', 'AGENT.md'].filter(at);
  if (isDir(join(dir, 'specs')) && !at('.ralph/specs')) items.push('specs');
  if (isDir(join(dir, 'logs')) && !at('.ralph/logs')) items.push('logs');
  for (const legacy of ['.ralph/@fix_plan.md', '.ralph/@AGENT.md']) if (at(legacy)) items.push(legacy);
  return items;
}

export function migrateProject(dir: string, now: Date): MigrateResult {
  if (isAlreadyMigrated(dir)) return { kind: 'already-migrated' };
  const items = findFlatLayoutItems(dir);
  if (items.length === 0) return { kind: 'nothing-to-migrate' };
  const backupDir = backUp(dir, items, now);
  const ralph = join(dir, '.ralph');
  const examplesFree = isEmptyDir(join(ralph, 'examples'));
  for (const sub of ['specs/stdlib', 'logs', 'docs/generated', 'examples']) mkdirSync(join(ralph, sub), { recursive: true });
  const moved: string[] = [];
  const move = (from: string, to: string) => {
    if (!existsSync(join(dir, from))) return;
    renameSync(join(dir, from), join(dir, to));
    moved.push(`${from} -> ${to}`);
  };
  move('PROMPT.md', '.ralph/PROMPT.md');
  moveFirst(dir, ['@fix_plan.md', 'fix_plan.md', '.ralph/@fix_plan.md'], '.ralph/fix_plan.md', move);
  moveFirst(dir, ['@AGENT.md', 'AGENT.md', '.ralph/@AGENT.md'], '.ralph/AGENT.md', move);
  // A root specs/ or logs/ is only Ralph's when .ralph/ had none (findFlatLayoutItems).
  for (const tree of ['specs', 'logs']) if (items.includes(tree)) mergeDirectory(dir, tree, `.ralph/${tree}`, moved);
  mergeDirectory(dir, 'docs/generated', '.ralph/docs/generated', moved);
  if (examplesFree) mergeDirectory(dir, 'examples', '.ralph/examples', moved);
  for (const file of ROOT_STATE_FILES) move(file, `.ralph/${file}`);
  return { kind: 'migrated', backupDir, moved };
}

// The first candidate that exists wins; superseded ones (e.g. fix_plan.md when
// @fix_plan.md exists) are dropped, since they are already in the backup.
function moveFirst(dir: string, candidates: string[], target: string, move: (from: string, to: string) => void): void {
  const present = candidates.filter((candidate) => existsSync(join(dir, candidate)));
  const [winner, ...superseded] = present;
  if (winner === undefined) return;
  if (existsSync(join(dir, target))) rmSync(join(dir, target));
  move(winner, target);
  for (const file of superseded) rmSync(join(dir, file));
}

// Copies the contents, then deletes the source only when the copy succeeded.
function mergeDirectory(dir: string, from: string, to: string, moved: string[]): void {
  const source = join(dir, from);
  if (!isDir(source)) return;
  cpSync(source, join(dir, to), { recursive: true, force: false, errorOnExist: false });
  rmSync(source, { recursive: true, force: true });
  moved.push(`${from}/ -> ${to}/`);
}

function backUp(dir: string, items: readonly string[], now: Date): string {
  const backupDir = join(dir, backupDirName(now));
  mkdirSync(backupDir, { recursive: true });
  const copy = (from: string, to: string) => {
    if (existsSync(join(dir, from))) cpSync(join(dir, from), join(backupDir, to), { recursive: true });
  };
  for (const item of items) copy(item, item);
  copy('docs/generated', 'docs_generated');
  if (isDir(join(dir, 'examples'))) copy('examples', 'examples');
  for (const file of ROOT_STATE_FILES) copy(file, file);
  return backupDir;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isEmptyDir(path: string): boolean {
  return !isDir(path) || readdirSync(path).length === 0;
}
