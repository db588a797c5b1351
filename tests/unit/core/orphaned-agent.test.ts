// judgeOrphanedAgent(): which agent group named in a stale lock a new ralph may stop. Pids are
// reused, so a recorded group is stopped only while it runs and its leader's pid, if taken, is
// still the process that was started; our own group never.

import { describe, expect, it } from 'vitest';
import { judgeOrphanedAgent } from '../../../lib/core/orphaned-agent.js';

const recorded = { agentPgid: 4242, agentStartTime: '123456' };
const observed = { groupRunning: true, leaderStartTime: '123456', ownPid: 5000, ownGroup: 4999 };

describe('judgeOrphanedAgent', () => {
  it.each([
    ['no agent recorded', {}, observed, { kind: 'none' }],
    ['the recorded leader still runs, same start time', recorded, observed, { kind: 'stop', pgid: 4242 }],
    ['the leader exited but its group runs on', recorded, { ...observed, leaderStartTime: undefined }, { kind: 'stop', pgid: 4242 }],
    ['no start time was recorded (no /proc)', { agentPgid: 4242 }, { ...observed, leaderStartTime: undefined }, { kind: 'stop', pgid: 4242 }],
    ['the group is gone', recorded, { ...observed, groupRunning: false }, { kind: 'gone', pgid: 4242 }],
    ['the pid now names a later process', recorded, { ...observed, leaderStartTime: '999999' }, { kind: 'reused', pgid: 4242 }],
    ['it is our own group', { agentPgid: 4999 }, observed, { kind: 'own', pgid: 4999 }],
    ['it is our own pid', { agentPgid: 5000 }, observed, { kind: 'own', pgid: 5000 }],
  ])('%s', (_name, lock, seen, verdict) => {
    expect(judgeOrphanedAgent(lock, seen)).toEqual(verdict);
  });
});
