// After each agent call and on every stop: the processes that left the agent's process group
// but still carry the run's mark (see platform/marked-processes.ts) are killed, and the log says
// so. Otherwise a `setsid` daemon of the agent outlives the call and can rewrite state between
// loops.

import { killMarkedProcesses } from '../platform/marked-processes.js';
import type { Logger } from '../platform/deps.js';

export function killEscapedProcesses(runId: string | undefined, logger: Logger): void {
  if (runId === undefined) return;
  const killed = killMarkedProcesses(runId);
  if (killed > 0) logger.warn(`Killed ${killed} process(es) the agent left running outside its process group (setsid or a daemon)`);
}
