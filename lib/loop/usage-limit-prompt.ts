// At a usage limit on a terminal, ask what to do: wait until the reset (the default after a
// timeout, as the Bash tool does), exit, or retry now. Unattended runs (no TTY) always wait.

import { formatClockTime } from '../core/rate-window.js';
import type { Output } from '../platform/deps.js';

export type UsageLimitChoice = 'wait' | 'exit' | 'retry';

export interface UsageLimitPromptOptions {
  stdin: NodeJS.ReadStream;
  stderr: Output;
  resumeAt: number;
  timeoutMs: number;
}

export function askUsageLimitChoice(options: UsageLimitPromptOptions): Promise<UsageLimitChoice> {
  const { stdin, stderr } = options;
  if (!stdin.isTTY || !stderr.isTTY) return Promise.resolve('wait');
  stderr.write(
    `\nThe Claude usage limit resets at ${formatClockTime(options.resumeAt)}.\n` +
      `  1) wait until then (default in ${Math.round(options.timeoutMs / 1000)}s)\n  2) exit\n  3) retry now\nChoice [1]: `,
  );
  return new Promise((resolve) => {
    const wasRaw = stdin.isRaw;
    const done = (choice: UsageLimitChoice) => {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
      stderr.write(`${choice}\n`);
      resolve(choice);
    };
    const onData = (data: Buffer) => {
      const key = data.toString().trim();
      if (key === '2') done('exit');
      else if (key === '3') done('retry');
      else if (key === '\u0003') done('exit');
      else done('wait');
    };
    const timer = setTimeout(() => done('wait'), options.timeoutMs);
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
