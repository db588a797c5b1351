// The scan for processes carrying the run's mark runs after every agent call over every process
// of the machine: a process already found without the mark is not read again while it is the
// same process (same pid, same /proc inode); a new one, a reused pid, or one whose environment
// read empty (in the middle of an exec), is.

import { describe, expect, it } from 'vitest';
import { findMarkedProcesses, RUN_MARK_VARIABLE, type ProcReader } from '../../../lib/platform/marked-processes.js';

interface FakeProcess {
  inode: number;
  env: string;
}

/** A /proc of `processes`, counting the environment reads per pid. */
function fakeProc(processes: Map<number, FakeProcess>) {
  const reads: number[] = [];
  const proc: ProcReader = {
    list: () => ['self', 'uptime', ...[...processes.keys()].map(String)],
    identity: (pid) => processes.get(pid)?.inode,
    environ: (pid) => {
      reads.push(pid);
      const found = processes.get(pid);
      return found && Buffer.from(found.env);
    },
  };
  return { proc, reads };
}

const marked = (runId: string) => `PATH=/bin\0${RUN_MARK_VARIABLE}=${runId}\0`;

describe('the scan for marked processes', () => {
  it('reads the environment of each process once while it stays the same process', () => {
    const runId = `scan-${process.pid}-a`;
    const processes = new Map<number, FakeProcess>([
      [100, { inode: 1000, env: 'PATH=/bin\0' }],
      [101, { inode: 1001, env: 'HOME=/root\0' }],
      [102, { inode: 1002, env: marked(runId) }],
    ]);
    const { proc, reads } = fakeProc(processes);
    expect(findMarkedProcesses(runId, proc)).toEqual([102]);
    expect(reads.sort()).toEqual([100, 101, 102]);

    // 102 was killed; a new process 103 started; pid 101 now names another process (a new inode).
    processes.delete(102);
    processes.set(103, { inode: 1003, env: marked(runId) });
    processes.set(101, { inode: 1101, env: marked(runId) });
    reads.length = 0;
    expect(findMarkedProcesses(runId, proc).sort()).toEqual([101, 103]);
    expect(reads.sort()).toEqual([101, 103]);

    // Nothing new: nothing read.
    processes.delete(101);
    processes.delete(103);
    reads.length = 0;
    expect(findMarkedProcesses(runId, proc)).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('remembers per run: a process without one run’s mark is still read for another run', () => {
    const [first, second] = [`scan-${process.pid}-b`, `scan-${process.pid}-c`];
    const processes = new Map<number, FakeProcess>([[200, { inode: 2000, env: marked(second) }]]);
    const { proc, reads } = fakeProc(processes);
    expect(findMarkedProcesses(first, proc)).toEqual([]);
    expect(findMarkedProcesses(second, proc)).toEqual([200]);
    expect(reads).toEqual([200, 200]);
  });

  it('reads again a process whose environment read empty: one caught in the middle of an exec shows none for a moment', () => {
    const runId = `scan-${process.pid}-d`;
    const processes = new Map<number, FakeProcess>([[300, { inode: 3000, env: '' }]]);
    const { proc } = fakeProc(processes);
    expect(findMarkedProcesses(runId, proc)).toEqual([]);
    // The same process (pid and inode), its exec done: the mark it inherited shows.
    processes.set(300, { inode: 3000, env: marked(runId) });
    expect(findMarkedProcesses(runId, proc)).toEqual([300]);
  });
});
