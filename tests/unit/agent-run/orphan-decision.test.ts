// judgeOrphanedAgent(): which agent group named in a stale lock a new ralph may stop. Pids are
// reused and the agent can write the lock, so a recorded group is stopped only while it runs and
// its leader is provably the process that was started (start time and executable); our own
// group and pid 1 never.

import { describe, expect, it } from 'vitest';
import { judgeOrphanedAgent } from '../../../lib/agent-run/orphan-decision.js';

const recorded = { agentPgid: 4242, agentStartTime: '123456', agentExe: '/usr/bin/node' };
const observed = { groupRunning: true, leaderStartTime: '123456', leaderExe: '/usr/bin/node', ownPid: 5000, ownGroup: 4999 };

describe('judgeOrphanedAgent', () => {
  it.each([
    ['no agent recorded', {}, observed, { kind: 'none' }],
    ['the recorded leader still runs, same start time', recorded, observed, { kind: 'stop', pgid: 4242 }],
    [
      'the leader exited but its group runs on (cannot be proven)',
      recorded,
      { ...observed, leaderStartTime: undefined, leaderExe: undefined },
      { kind: 'unproven', pgid: 4242 },
    ],
    ['no start time was recorded (a forged lock, or no /proc)', { agentPgid: 4242 }, observed, { kind: 'unproven', pgid: 4242 }],
    ['no executable was recorded', { agentPgid: 4242, agentStartTime: '123456' }, observed, { kind: 'unproven', pgid: 4242 }],
    ['the leader runs another executable', recorded, { ...observed, leaderExe: '/usr/bin/sleep' }, { kind: 'unproven', pgid: 4242 }],
    ['pid 1, whatever was recorded', { ...recorded, agentPgid: 1 }, observed, { kind: 'own', pgid: 1 }],
    ['the group is gone', recorded, { ...observed, groupRunning: false }, { kind: 'gone', pgid: 4242 }],
    ['the pid now names a later process', recorded, { ...observed, leaderStartTime: '999999' }, { kind: 'unproven', pgid: 4242 }],
    ['it is our own group', { agentPgid: 4999 }, observed, { kind: 'own', pgid: 4999 }],
    ['it is our own pid', { agentPgid: 5000 }, observed, { kind: 'own', pgid: 5000 }],
  ])('%s', (_name, lock, seen, verdict) => {
    expect(judgeOrphanedAgent(lock, seen)).toEqual(verdict);
  });
});
