// After each loop: the git settings the agent left in nested repositories of the project are
// disarmed (lib/containment/git-disarm.ts) and named in a warning, so that the user's next git
// command there runs nothing the agent planted. A nested repository is also named once when it
// appears: ralph leaves it out of its own commits.

import { join, relative } from 'node:path';
import { formatFileStamp } from '../state/timestamps.js';
import { disarmNestedRepositories } from './git-disarm.js';
import type { Run } from '../loop/run.js';

export async function disarmGitAfterLoop(run: Run, loop: number): Promise<void> {
  const known = run.gitRepositories;
  if (!known) return;
  const { deps, paths } = run;
  const quarantine = join(relative(paths.projectDir, paths.ralphDir), 'quarantine', `${formatFileStamp(deps.clock.now())}-loop${loop}-git`);
  let disarmed;
  try {
    disarmed = await disarmNestedRepositories({ projectDir: paths.projectDir, env: deps.env, processRunner: deps.processRunner }, known, quarantine);
  } catch (error) {
    // The project's own repository could not be looked at (the guarded-files step says why and stops the run).
    deps.logger.warn(`Could not look for nested git repositories after loop #${loop}: ${(error as Error).message}`);
    return;
  }
  // Files were moved or rewritten since the walk after the call: it no longer stands for the content snapshot.
  if (disarmed.some((each) => each.removed.length > 0)) run.sandbox.changes?.stale();
  for (const each of disarmed) {
    if (each.created)
      deps.logger.info(
        `${each.repository} is a git repository of its own, made during the run: ralph leaves it out of its commits and never runs git inside it`,
      );
    if (each.removed.length === 0) continue;
    const kept = each.removed.some((what) => what.endsWith('(hook)') || what.includes('leading out')) ? ` (the files moved are kept in ${quarantine}/)` : '';
    deps.logger.warn(`Disarmed git settings in ${each.repository} that would run programs on your next git command there: ${each.removed.join(', ')}${kept}`);
    run.state.guards.alert(`loop ${loop}: disarmed git settings in ${each.repository}: ${each.removed.join(', ')}`);
  }
}
