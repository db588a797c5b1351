// The warning for a process that escaped a process group ralph started (a daemon made with
// `setsid`) and kept its output pipes open after the group's leader exited: ralph closed them
// and went on, but that process may still run, out of ralph's reach.

export function escapedOutputWarning(whose: string): string {
  return `A process escaped the ${whose}'s process group and held its output open after it exited; ralph closed the pipes and went on (that process may still be running)`;
}
