// The run state of a project that was moved. ralph's state folder of a project (its ledger, the
// plan's memory, the content ids: lib/state/ledger.ts) is keyed by the project's path, so a
// project moved or renamed (`mv`) would start at its new path with none of it: the breaker
// closed, the hour's calls forgotten, and items the agent ticked without work believed done.
// When the new path has no state folder yet, the one kept for a path that no longer exists is
// taken over, if its ledger's run is one of the runs this project's `.ralph/sessions/` records
// and no other folder matches. A copy (the old path still there) keeps nothing: its original does.

import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { listRunRecordFiles } from './record-files.js';
import { LEDGER_FILE, ledgerPath, ledgerRoot } from '../state/ledger-path.js';
import type { Deps } from '../platform/deps.js';

/** The ids of the runs whose records the project's sessions folder holds (`<run-id>.json`). */
function recordedRunIds(sessionsDir: string): Set<string> {
  return new Set(listRunRecordFiles({ sessionsDir }).map((file) => basename(file, '.json')));
}

/** The project path and run id a state folder's ledger names, or undefined when it cannot be read. */
function ledgerOwner(folder: string): { project: string; runId: string | undefined } | undefined {
  try {
    const ledger = JSON.parse(readFileSync(join(folder, LEDGER_FILE), 'utf8')) as { project?: unknown; run?: { state?: { run_id?: unknown } } | null };
    if (typeof ledger.project !== 'string') return undefined;
    const runId = ledger.run?.state?.run_id;
    return { project: ledger.project, runId: typeof runId === 'string' ? runId : undefined };
  } catch {
    return undefined;
  }
}

/** Moves the state folder of the path this project was moved from to its own; returns where from, if it did. */
export function adoptStateOfMovedProject(
  projectDir: string,
  sessionsDir: string,
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string,
): { from: string; to: string } | undefined {
  const to = dirname(ledgerPath(projectDir, env, homeDir));
  if (existsSync(to)) return undefined;
  const runIds = recordedRunIds(sessionsDir);
  if (runIds.size === 0) return undefined;
  const root = ledgerRoot(env, homeDir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return undefined;
  }
  const matches = names
    .filter((name) => !name.includes('.replaced-'))
    .map((name) => join(root, name))
    .filter((folder) => {
      const owner = ledgerOwner(folder);
      return owner?.runId !== undefined && runIds.has(owner.runId) && !existsSync(owner.project);
    });
  if (matches.length !== 1) return undefined;
  const from = matches[0]!;
  renameSync(from, to);
  return { from, to };
}

/** At a run's start: a project moved since its last run takes its state folder along, and says so. */
export function takeOverMovedProjectState(projectDir: string, sessionsDir: string, deps: Pick<Deps, 'env' | 'homeDir' | 'logger'>): void {
  try {
    const moved = adoptStateOfMovedProject(projectDir, sessionsDir, deps.env, deps.homeDir);
    if (moved) {
      deps.logger.info(`This project was moved: its run state (budgets, circuit breaker, the plan's memory) kept at ${moved.from} now belongs to its new path`);
    }
  } catch (error) {
    deps.logger.warn(`Could not take over the run state of this moved project: ${(error as Error).message}`);
  }
}
