// The run state a deleted project left under the user's state directory. ralph's ledger of a
// project (lib/state/ledger.ts) is keyed by the project's path, so a project created again at
// the path of a deleted one would inherit its breaker, its call count and its unfinished run:
// a brand-new project halting at its first loop on an OPEN breaker it never had. ralph-setup,
// when it creates the project's folder (so nothing of the old project is left there), moves
// such state aside, kept for the user, never deleted. Only a folder ralph-setup itself creates
// counts: an agent cannot reset its own run's budgets by deleting files inside a project that
// goes on existing, and a running ralph holds its ledger in memory and writes it back.

import { existsSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RalphError } from '../errors.js';
import { ledgerPath, realPathOf } from './ledger-path.js';

/** Moves aside the state folder kept for the path of `projectDir`, a folder about to be made, if any; returns where it went. */
export function moveAsideStateOfGoneProject(
  projectDir: string,
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
  now: Date,
): { from: string; to: string } | undefined {
  // The project's folder does not exist yet: its path as it will be, through its parent's real path.
  const from = dirname(ledgerPath(join(realPathOf(dirname(projectDir)), basename(projectDir)), env, homeDir));
  if (!existsSync(from)) return undefined;
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let to = `${from}.replaced-${stamp}`;
  for (let n = 2; existsSync(to); n++) to = `${from}.replaced-${stamp}-${n}`;
  try {
    renameSync(from, to);
  } catch (error) {
    throw new RalphError(
      'state_not_moved',
      `The run state a deleted project left at this path could not be moved aside: ${from} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      {
        hint: `move or delete ${from} yourself; the new project would otherwise start with the old one's breaker and budgets`,
        cause: error,
      },
    );
  }
  return { from, to };
}

/** What ralph-setup and ralph-import say when they moved such state aside. */
export function goneProjectStateLine(to: string): string {
  return `[INFO] A deleted project had run at this path: its run state (circuit breaker, call count, unfinished run) was moved aside to ${to}; the new project starts without it`;
}
