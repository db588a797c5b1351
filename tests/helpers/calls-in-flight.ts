// A process runner that records, for each command it is given to run, how many of its commands
// (that one included) were running as it started: two steps asked side by side show as one of
// them starting while the other runs, whatever the machine's speed.

import type { ProcessRunner } from '../../lib/platform/process.js';

export interface CallInFlight {
  cmd: string;
  args: readonly string[];
  /** How many commands run by this runner were running when this one started, itself included. */
  running: number;
}

export function recordCallsInFlight(inner: ProcessRunner): { runner: ProcessRunner; calls: CallInFlight[] } {
  const calls: CallInFlight[] = [];
  let running = 0;
  const runner: ProcessRunner = {
    start: (cmd, args, options) => inner.start(cmd, args, options),
    async run(cmd, args, options) {
      running++;
      calls.push({ cmd, args, running });
      try {
        return await inner.run(cmd, args, options);
      } finally {
        running--;
      }
    },
  };
  return { runner, calls };
}

/** The calls whose arguments include `word`. */
export function callsNaming(calls: readonly CallInFlight[], word: string): CallInFlight[] {
  return calls.filter((call) => call.args.includes(word));
}
