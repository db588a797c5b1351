// Attaching to a tmux session needs the user's real terminal (stdin, stdout and stderr
// inherited) and the terminal's foreground process group, so it runs without a group of its own.

import { nodeProcessRunner } from '../platform/process.js';

export type AttachTerminal = (cmd: string, args: readonly string[], env: NodeJS.ProcessEnv) => Promise<number>;

/** Runs the command on the current terminal and resolves with its exit code when it ends. */
export const attachInheritingTerminal: AttachTerminal = async (cmd, args, env) => {
  const exit = await nodeProcessRunner.start(cmd, args, { stdio: 'inherit', env, group: false }).done;
  return exit.spawnError ? 1 : (exit.code ?? 1);
};
