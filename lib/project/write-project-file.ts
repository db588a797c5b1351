// Creating a project file without clobbering the user's: an existing file is kept unless
// force is set, and then a copy goes to the run's backup first. Writes are atomic so an
// interrupted setup never leaves half a file.

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import type { FileBackup } from './file-backup.js';
import { renderTemplate } from './templates.js';

/** `unchanged`: force was given but the file already holds exactly this content. */
export type FileWriteOutcome = 'created' | 'overwritten' | 'skipped' | 'unchanged';

export interface WriteProjectFileOptions {
  force?: boolean;
  mode?: number;
  /** Where a replaced file is copied first (with force). */
  backup?: FileBackup;
}

export function writeProjectFile(path: string, content: string, options: WriteProjectFileOptions = {}): FileWriteOutcome {
  const exists = existsSync(path);
  if (exists && !options.force) return 'skipped';
  if (exists) {
    if (readFileSync(path, 'utf8') === content) return 'unchanged';
    options.backup?.save(path);
  }
  writeFileAtomic(path, content, options.mode === undefined ? {} : { mode: options.mode });
  return exists ? 'overwritten' : 'created';
}

/**
 * Copies a skeleton tree (e.g. .ralph-template/) into target, creating directories and
 * files that are missing; existing files are never touched. Markdown files are rendered
 * with vars. Returns the files created, relative to target.
 */
export function copySkeleton(skeletonDir: string, targetDir: string, vars: Readonly<Record<string, string>>): string[] {
  const created: string[] = [];
  copyTree(skeletonDir, targetDir, '', vars, created);
  return created;
}

function copyTree(from: string, to: string, prefix: string, vars: Readonly<Record<string, string>>, created: string[]): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    const relative = prefix ? `${prefix}/${name}` : name;
    if (statSync(source).isDirectory()) {
      copyTree(source, target, relative, vars, created);
    } else if (!existsSync(target)) {
      if (name.endsWith('.md')) writeFileAtomic(target, renderTemplate(readFileSync(source, 'utf8'), vars));
      else copyFileSync(source, target);
      created.push(relative);
    }
  }
}
