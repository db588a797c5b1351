// Attaching to a tmux session needs the user's real terminal (stdin, stdout and stderr
// inherited), which ProcessRunner's piped `run` cannot give; this is the one spawn that does.

import { spawn } from 'node:child_process';

export type AttachTerminal = (cmd: string, args: readonly string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Runs the command on the current terminal and resolves with its exit code when it ends. */
export const attachInheritingTerminal: AttachTerminal = (cmd, args, env) =>
  new Promise((resolve) => {
    const child = spawn(cmd, [...args], { stdio: 'inherit', env });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
