// What to do about the agent process group named in a stale lock (its ralph was killed with -9
// and the agent ran on): stop it, unless it is gone, its pid now names another process, or it is
// our own group. Pure: the caller observes the processes and acts on the verdict.

export interface RecordedAgentGroup {
  agentPgid?: number;
  agentStartTime?: string;
}

export interface AgentGroupObservation {
  /** Some process of the group still runs (zombies do not count). */
  groupRunning: boolean;
  /** The start time of the process now holding the leader's pid; undefined if none (or no /proc). */
  leaderStartTime?: string;
  ownPid: number;
  ownGroup?: number;
}

export type OrphanedAgentVerdict =
  | { kind: 'none' }
  | { kind: 'gone' | 'own' | 'reused' | 'stop'; pgid: number };

export function judgeOrphanedAgent(recorded: RecordedAgentGroup | undefined, observed: AgentGroupObservation): OrphanedAgentVerdict {
  const pgid = recorded?.agentPgid;
  if (pgid === undefined) return { kind: 'none' };
  if (pgid === observed.ownPid || pgid === observed.ownGroup) return { kind: 'own', pgid };
  if (!observed.groupRunning) return { kind: 'gone', pgid };
  // The leader's pid was reused by a later process: the group we started is gone. (A leader that
  // exited leaves its group id reserved while members remain, so a missing leader is no reuse.)
  const recordedStart = recorded?.agentStartTime;
  if (recordedStart !== undefined && observed.leaderStartTime !== undefined && observed.leaderStartTime !== recordedStart) {
    return { kind: 'reused', pgid };
  }
  return { kind: 'stop', pgid };
}
