// Before anything else, a ralph that took over the stale lock of a dead one stops the agent that
// ralph left running (its process group, as the lock recorded it): SIGTERM, then SIGKILL after
// the grace period, and says so. Otherwise two agents would work on the same tree.

import { judgeOrphanedAgent } from './orphan-decision.js';
import type { Logger } from '../platform/deps.js';
import { isProcessGroupRunning, readOwnProcessGroup, readProcessExecutable, readProcessStartTime, stopProcessGroup } from '../platform/process-group.js';
import type { LockState } from '../state/lock.js';

export async function stopOrphanedAgent(previous: LockState | undefined, options: { logger: Logger; graceMs: number }): Promise<void> {
  const pgid = previous?.agentPgid;
  if (previous === undefined || pgid === undefined) return;
  const verdict = judgeOrphanedAgent(previous, {
    groupRunning: isProcessGroupRunning(pgid),
    leaderStartTime: readProcessStartTime(pgid),
    leaderExe: readProcessExecutable(pgid),
    ownPid: process.pid,
    ownGroup: readOwnProcessGroup(),
  });
  if (verdict.kind === 'unproven') {
    options.logger.warn(`The stale lock named process group ${pgid}, but its leader is not the agent it recorded; left alone`);
    return;
  }
  if (verdict.kind !== 'stop') return;
  options.logger.warn(`The agent of the ralph that is gone (pid ${previous.pid}) is still running (process group ${pgid}); stopping it first`);
  const how = await stopProcessGroup(pgid, options.graceMs);
  options.logger.warn(
    `Stopped the agent left running by pid ${previous.pid} (process group ${pgid}${how === 'killed' ? ', with SIGKILL after the grace period' : ''})`,
  );
}
