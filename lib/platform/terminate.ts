// Ending a process tree that ProcessRunner.spawnTree started, and waiting for it to be gone:
// SIGTERM to the whole group, SIGKILL after a grace period for whatever ignored it, and a wait
// that does not hang on pipes an escaped grandchild holds open. Shared by the agent run
// (lib/agents/run-agent.ts) and the verification gate's commands (lib/verify/run-command.ts).

import type { ChildProcess } from 'node:child_process';
import type { ProcessRunner } from './process.js';

export interface TreeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /**
   * The child had exited, but something outside its process group (a daemon started with
   * setsid) still held its stdout or stderr when the drain time ran out; the pipes were closed.
   */
  pipesHeldOpen: boolean;
}

/** After the child itself exits, how long its pipes may stay open before the wait moves on. */
export const PIPE_DRAIN_MS = 2000;

/**
 * SIGTERM to the child's process group now, SIGKILL after graceMs: the child (or a tool it
 * started) may ignore SIGTERM. Returns the function that cancels the SIGKILL once it is gone.
 */
export function stopProcessTree(child: ChildProcess, runner: ProcessRunner, graceMs: number): () => void {
  runner.killTree(child, 'SIGTERM');
  const timer = setTimeout(() => runner.killTree(child, 'SIGKILL'), graceMs);
  return () => clearTimeout(timer);
}

/**
 * The child's exit, once its pipes have closed — or `drainMs` after it exited, when a process
 * that left the group keeps them open: then the pipes are destroyed (a pipe still open keeps
 * Node's event loop, and so ralph, alive after the loop has ended) — and then whatever the child
 * left running in its group is killed. Resolves with nulls when the child could not be started.
 */
export async function waitForProcessTree(child: ChildProcess, runner: ProcessRunner, drainMs = PIPE_DRAIN_MS): Promise<TreeExit> {
  const exit = await new Promise<TreeExit>((resolve) => {
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null, pipesHeldOpen: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(drainTimer);
      resolve({ code, signal, pipesHeldOpen });
    };
    child.on('close', (code, signal) => finish(code, signal, false));
    child.on('exit', (code, signal) => {
      drainTimer = setTimeout(() => {
        for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
        finish(code, signal, true);
      }, drainMs);
    });
    child.on('error', () => finish(null, null, false));
  });
  runner.killTree(child, 'SIGKILL');
  return exit;
}
