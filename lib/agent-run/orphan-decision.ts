// What to do about the agent process group named in a stale lock (its ralph was killed with -9
// and the agent ran on): stop it only when its leader is still the process ralph started — the
// start time and executable recorded in the lock both match — never pid 1 or our own group.
// The agent can write the lock, so a group it cannot prove is left alone. Pure: the caller
// observes the processes and acts on the verdict.

export interface RecordedAgentGroup {
  agentPgid?: number;
  agentStartTime?: string;
  agentExe?: string;
}

export interface AgentGroupObservation {
  /** Some process of the group still runs (zombies do not count). */
  groupRunning: boolean;
  /** The start time of the process now holding the leader's pid; undefined if none (or no /proc). */
  leaderStartTime?: string;
  /** The executable of that process; undefined if none (or no /proc). */
  leaderExe?: string;
  ownPid: number;
  ownGroup?: number;
}

export type OrphanedAgentVerdict = { kind: 'none' } | { kind: 'gone' | 'own' | 'unproven' | 'stop'; pgid: number };

export function judgeOrphanedAgent(recorded: RecordedAgentGroup | undefined, observed: AgentGroupObservation): OrphanedAgentVerdict {
  const pgid = recorded?.agentPgid;
  if (pgid === undefined) return { kind: 'none' };
  if (pgid <= 1 || pgid === observed.ownPid || pgid === observed.ownGroup) return { kind: 'own', pgid };
  if (!observed.groupRunning) return { kind: 'gone', pgid };
  // Both must be recorded and both must match: a reused pid, a leader that exited, or a lock
  // naming a group the agent chose is not provably ours.
  const proven =
    recorded?.agentStartTime !== undefined &&
    recorded.agentExe !== undefined &&
    observed.leaderStartTime === recorded.agentStartTime &&
    observed.leaderExe === recorded.agentExe;
  return { kind: proven ? 'stop' : 'unproven', pgid };
}
