// Loaded before every test file (vitest setupFiles). With RALPH_TEST_CPU_LOG=<file> set, it
// appends one JSON line per test file to that file: the CPU seconds (user and system) the file
// cost its worker process and every process the worker waited for (ralph, git, tmux, the fake
// agents, and what they started in turn). Wall time on a
// shared machine says little; CPU time says where `npm test`'s two cores go. Off by default, so
// an ordinary run reads nothing.
//
// Workers run file after file (no isolation), so the difference between the file's start (this
// setup file runs before each test file is imported) and its end is the file's own. A process nobody waits for (a daemon that outlives its parent, such as a
// tmux server) is not counted.

import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

const LOG = process.env.RALPH_TEST_CPU_LOG;
const TICKS_PER_SECOND = 100;

interface CpuSample {
  user: number;
  system: number;
}

/** This process's CPU and that of the children it waited for, from /proc/self/stat. */
function sample(): CpuSample {
  // Fields after the command name: state is [0], utime [11], stime [12], cutime [13], cstime [14].
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const ticks = (index: number) => fields[index] ?? 0;
  return {
    user: (ticks(11) + ticks(13)) / TICKS_PER_SECOND,
    system: (ticks(12) + ticks(14)) / TICKS_PER_SECOND,
  };
}

if (LOG) {
  // Taken when this setup file runs, before the test file is imported: its import counts too.
  const start = sample();
  // vitest reads a hook's first parameter as fixtures to set up: an empty pattern asks for none.
  // oxlint-disable-next-line no-empty-pattern
  afterAll(({}, suite) => {
    const end = sample();
    const file = 'filepath' in suite ? String(suite.filepath) : suite.name;
    const line = {
      file,
      user: +(end.user - start.user).toFixed(2),
      system: +(end.system - start.system).toFixed(2),
    };
    appendFileSync(LOG, `${JSON.stringify(line)}\n`);
  });
}
