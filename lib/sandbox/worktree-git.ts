// A linked git worktree (each unit of `ralph --parallel` works in one) keeps its git data out
// of its folder: its admin folder `<repository>/.git/worktrees/<name>`, and the repository's
// objects and refs. For the agent to commit in its worktree inside a sandbox, these are
// mounted at their own paths: writable, its admin folder, the objects and the folder of its
// branch's ref (and reflog); read-only, what says where git looks (the admin folder's gitdir
// and commondir, objects/info) and the repository's config and HEAD. Hooks and every other
// branch stay out of reach. A project that is not a linked worktree needs none of this.

import { lstatSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface WorktreeGitMounts {
  /** Mounted read-write at their own paths. */
  writable: string[];
  /** Mounted read-only at their own paths, on top of the writable ones. */
  readOnly: string[];
}

const REF = /^ref: (refs\/heads\/[A-Za-z0-9._/-]+)\s*$/;

/** The mounts the agent needs to commit in the linked worktree `dir`; undefined when `dir` is not one (or looks forged). */
export function worktreeGitMounts(dir: string): WorktreeGitMounts | undefined {
  const gitFile = join(dir, '.git');
  try {
    if (!lstatSync(gitFile).isFile()) return undefined;
    const pointer = /^gitdir: (.+)$/m.exec(readFileSync(gitFile, 'utf8'))?.[1]?.trim();
    if (!pointer) return undefined;
    const admin = realpathSync(resolve(dir, pointer));
    const commonText = readFileSync(join(admin, 'commondir'), 'utf8').trim();
    const common = realpathSync(isAbsolute(commonText) ? commonText : resolve(admin, commonText));
    // Only a worktree of that repository: its admin folder sits in the repository's worktrees/.
    if (dirname(admin) !== join(common, 'worktrees')) return undefined;
    const ref = REF.exec(readFileSync(join(admin, 'HEAD'), 'utf8'))?.[1];
    if (!ref || ref.split('/').includes('..')) return undefined;
    const refDir = dirname(join(common, ref));
    const logDir = dirname(join(common, 'logs', ref));
    mkdirSync(logDir, { recursive: true });
    // Made before it is mounted read-only: else the agent could make it, and alternates in it.
    mkdirSync(join(common, 'objects', 'info'), { recursive: true });
    return {
      writable: [admin, join(common, 'objects'), refDir, logDir],
      readOnly: [
        join(admin, 'gitdir'),
        join(admin, 'commondir'),
        join(common, 'objects', 'info'),
        ...existing([join(common, 'config'), join(common, 'HEAD'), join(common, 'packed-refs')]),
      ],
    };
  } catch {
    return undefined;
  }
}

function existing(paths: string[]): string[] {
  return paths.filter((path) => {
    try {
      return lstatSync(path).isFile();
    } catch {
      return false;
    }
  });
}
