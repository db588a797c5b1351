// The agent's process group as the project lock records it, so a ralph that takes over the lock
// of one killed with -9 can prove the group it finds running is the agent that ralph started.

import { readProcessExecutable, readProcessStartTime } from '../platform/process-group.js';
import type { AgentGroup, ProjectLock } from '../state/lock.js';

/**
 * Records the agent's process group in the lock: its leader's start time and executable as
 * spawned, and again at its first output if the executable changed since. A launcher
 * (`#!/usr/bin/env node`, an npm shim) replaces itself after the spawn, so the executable read at
 * spawn is often the launcher's, which a ralph taking over the lock would not find running.
 */
export function trackAgentGroup(agentGroup: Pick<ProjectLock, 'recordAgent'>): { recordSpawned(pid: number): void; recordSettled(pid: number): void } {
  let recorded: AgentGroup | undefined;
  return {
    recordSpawned(pid) {
      recorded = { pgid: pid, startTime: readProcessStartTime(pid), exe: readProcessExecutable(pid) };
      agentGroup.recordAgent(recorded);
    },
    recordSettled(pid) {
      const exe = readProcessExecutable(pid);
      // The same process (its start time) now running another executable: not a reused pid.
      if (recorded?.pgid !== pid || exe === undefined || exe === recorded.exe || readProcessStartTime(pid) !== recorded.startTime) return;
      recorded = { ...recorded, exe };
      agentGroup.recordAgent(recorded);
    },
  };
}
