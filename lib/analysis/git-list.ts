// git's list of the project's files (tracked and untracked, not ignored), as the content snapshot
// reads it: compared with the last list as its bytes come, so an unchanged list is the same
// Buffer and a changed one keeps the prefix it shares with the last (lib/analysis/content-snapshot.ts).

import type { ProcessRunner } from '../platform/process.js';
import { startGitCommand } from '../platform/git-operations.js';
import { walkFolder } from './listing-delta.js';

/** git's file list, or `previous` itself when git gave the same bytes again; null when git is missing. */
export async function listWithGit(
  run: { processRunner: ProcessRunner; cwd: string; env: NodeJS.ProcessEnv },
  previous: Buffer | undefined,
): Promise<Buffer | null> {
  // Only what differs from the last list is kept: the same prefix is taken from it.
  const chunks: Buffer[] = [];
  let length = 0;
  let same = previous !== undefined;
  const onStdout = (chunk: Buffer): void => {
    if (same && !chunk.equals(previous!.subarray(length, length + chunk.length))) {
      same = false;
      chunks.push(previous!.subarray(0, length));
    }
    if (!same) chunks.push(chunk);
    length += chunk.length;
  };
  // No fsmonitor, not even the user's own: it is a program, and listing needs none.
  const listing = startGitCommand(run.processRunner, ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: run.cwd,
    // No optional locks: nothing here may refresh the user's index as a side effect.
    env: run.env,
    input: '',
    onStdout,
  });
  const exit = await listing.done;
  if (exit.spawnError) return null;
  if (exit.code !== 0) {
    const walked = Buffer.from(walkFolder(run.cwd).join('\0'));
    return previous?.equals(walked) ? previous : walked;
  }
  if (same) return length === previous!.length ? previous! : previous!.subarray(0, length);
  return Buffer.concat(chunks);
}

/** The paths (project-relative) git's ignore rules leave out, asked without reading the index; null when git failed. */
export async function ignoredOf(
  run: { processRunner: ProcessRunner; cwd: string; env: NodeJS.ProcessEnv },
  paths: readonly string[],
): Promise<Set<string> | null> {
  const chunks: Buffer[] = [];
  // The paths go on stdin, never in the arguments.
  const exit = await startGitCommand(run.processRunner, ['check-ignore', '--no-index', '-z', '--stdin'], {
    cwd: run.cwd,
    env: run.env,
    input: paths.map((path) => `${path}\0`).join(''),
    onStdout: (chunk) => chunks.push(chunk),
  }).done;
  // 0: some are ignored, 1: none is.
  if (exit.spawnError || (exit.code !== 0 && exit.code !== 1)) return null;
  return new Set(Buffer.concat(chunks).toString('utf8').split('\0').filter(Boolean));
}
