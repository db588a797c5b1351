// The copy a --force run keeps of every file it replaces: one `.ralph_backup_<stamp>/` per run
// (the directory ralph-migrate uses too, git-ignored by the template), mirroring the project's
// relative paths, created only when something is actually replaced.

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface FileBackup {
  /** The backup directory (it exists only once a file was saved). */
  readonly dir: string;
  /** Copies path (inside the project) into the backup before it is replaced. */
  save(path: string): void;
  /** Saved files, relative to the project. */
  saved(): string[];
}

export function backupDirName(now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `.ralph_backup_${stamp}`;
}

export function createFileBackup(projectDir: string, now: Date): FileBackup {
  const dir = join(projectDir, backupDirName(now));
  const saved: string[] = [];
  return {
    dir,
    save(path) {
      const rel = relative(projectDir, path);
      const target = join(dir, rel);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(path, target);
      saved.push(rel);
    },
    saved: () => [...saved],
  };
}
