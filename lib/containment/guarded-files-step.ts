// After each agent call: a change to a guarded file (lib/containment/guarded-files.ts) is undone,
// named in a warning and in the run record; the second agent call of a run that changes one
// halts the run (exit 2) with what it changed.

import { join, relative } from 'node:path';
import { EXIT } from '../errors.js';
import { formatFileStamp } from '../state/timestamps.js';
import { restoreGuardedFiles } from './guarded-files.js';
import { stopRun, type Run, type RunStop } from '../loop/run.js';

export const GUARDED_FILE_EXIT_REASON = 'guarded_file_changed';

/** Undoes what the agent changed; a stop when this run's agent did so before. */
export function undoGuardedFileChanges(run: Run, loop: number): RunStop | undefined {
  const { deps, paths } = run;
  // One folder per call: two calls within a second keep both versions.
  const quarantine = join(relative(paths.projectDir, paths.ralphDir), 'quarantine', `${formatFileStamp(deps.clock.now())}-loop${loop}`);
  const violations = restoreGuardedFiles(run.guarded, quarantine);
  if (violations.length === 0) return undefined;
  // Files were put back since the walk after the call: it no longer stands for the content snapshot.
  run.sandbox.changes?.stale();
  const calls = run.state.guards.countViolatingCall();
  for (const v of violations) {
    if (v.unrestored) continue; // said below, with what to do
    const kept = v.keptAt ? `; the agent's version is kept in ${v.keptAt}` : '';
    deps.logger.warn(`The agent changed ${v.path}, which configures what ralph and the agent run: undone${kept} (edit it between runs, not during one)`);
  }
  const anyKept = violations.some((v) => v.keptAt);
  run.state.guards.alert(
    `loop ${loop}: the agent changed ${violations.map((v) => v.path).join(', ')}; undone${anyKept ? `, its versions in ${quarantine}/` : ''}`,
  );
  const diff = violations.map((v) => v.diff).join('\n');
  run.recorder?.observe({ loop, source: 'guarded-file', exitCode: null, durationMs: 0, raw: diff, data: { files: violations.map((v) => v.path) } });
  const unrestored = violations.filter((v) => v.unrestored);
  if (unrestored.length > 0) {
    for (const v of unrestored) deps.stderr.write(`ralph could not put back ${v.path}: ${v.unrestored}\n`);
    return stopRun(
      EXIT.halted,
      'halted',
      GUARDED_FILE_EXIT_REASON,
      GUARDED_FILE_EXIT_REASON,
      `The agent changed ${unrestored.map((v) => v.path).join(', ')} in a way ralph could not undo; halted (${unrestored[0]!.unrestored})`,
    );
  }
  if (calls < 2) return undefined;
  deps.stderr.write(`Guarded files changed by the agent again (undone):\n${diff}\n`);
  return stopRun(
    EXIT.halted,
    'halted',
    GUARDED_FILE_EXIT_REASON,
    GUARDED_FILE_EXIT_REASON,
    `The agent changed guarded files in ${calls} calls of this run (${violations.map((v) => v.path).join(', ')}); halted`,
  );
}
