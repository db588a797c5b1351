// A private tmux server per test (`tmux -L ralph-test-<random>`, its socket in a temp folder of
// its own through TMUX_TMPDIR, so no `tmux-<uid>` folder is left in the machine's), read through
// capture-pane, and a bounded poll for conditions that tmux reaches asynchronously (a pane drawing
// its first frame, a session closing): it checks every few ms and fails with a clear message at
// a generous deadline, so it never races a fixed sleep.

import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateTmux {
  socket: string;
  /** What a ralph run needs to use this server: the socket's name and the folder it is in. */
  env: { RALPH_TMUX_SOCKET: string; TMUX_TMPDIR: string };
  /** Runs a tmux command on this server; returns stdout, throws on failure. */
  run(...args: string[]): string;
  /** Exit code of a tmux command (for has-session). */
  status(...args: string[]): number;
  /** The visible text of a pane, wrapped lines joined. */
  capture(pane: string, options?: { escapes?: boolean }): string;
  kill(): void;
}

export function privateTmux(): PrivateTmux {
  const socket = `ralph-test-${randomBytes(6).toString('hex')}`;
  // Short names: the socket's path, <dir>/tmux-<uid>/<socket>, must fit in 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'tmux-'));
  const options = { env: { ...process.env, TMUX_TMPDIR: dir } };
  const run = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { ...options, encoding: 'utf8' });
  let killed = false;
  return {
    socket,
    env: { RALPH_TMUX_SOCKET: socket, TMUX_TMPDIR: dir },
    run,
    status: (...args) => spawnSync('tmux', ['-L', socket, ...args], { ...options, stdio: 'ignore' }).status ?? 1,
    capture: (pane, options = {}) => run('capture-pane', '-p', '-J', ...(options.escapes ? ['-e'] : []), '-t', pane),
    kill() {
      // Once only: with its folder gone, tmux would fall back to the machine's temp folder.
      if (killed) return;
      killed = true;
      // The panes' process groups (a ralph still writing its state when a test failed early)
      // go with the server: their folders are removed next, so they must be gone by then.
      const groups =
        spawnSync('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { ...options, encoding: 'utf8' })
          .stdout?.split('\n')
          .map(Number)
          .filter((pid) => pid > 1) ?? [];
      spawnSync('tmux', ['-L', socket, 'kill-server'], { ...options, stdio: 'ignore' });
      for (const pid of groups) stopGroup(pid);
      // tmux leaves the socket file of a stopped server behind, and its tmux-<uid> folder.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls `check` until it gives a value. The deadline only turns vitest's generic timeout (30 s)
 * into a message naming what never came: it is kept just under it, so a loaded machine that is
 * merely slow still passes.
 */
export async function waitFor<T>(what: string, check: () => T | undefined | false, deadlineMs = 25_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** SIGKILLs a pane's process group and waits (up to 10 s) until its leader is gone. */
function stopGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    return; // already gone
  }
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 400; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    Atomics.wait(pause, 0, 0, 25);
  }
}
