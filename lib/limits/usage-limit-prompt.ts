// At a usage limit, ask what to do: wait until the reset (the default after a timeout, as the
// Bash tool does), exit, or retry now. On a terminal the menu is shown and one key read; when
// stdin is a pipe or file (`printf '2' | ralph`), its first character is read as the Bash
// tool's `read -t 30 -n 1` does; stdin with nothing in it (EOF, /dev/null) means unattended:
// wait.

import { formatClockTime } from './rate-window.js';
import type { Output } from '../platform/deps.js';

export type UsageLimitChoice = 'wait' | 'exit' | 'retry';

export interface UsageLimitPromptOptions {
  /** Absent: nobody to ask, so wait. */
  stdin: NodeJS.ReadStream | undefined;
  stderr: Output;
  resumeAt: number;
  timeoutMs: number;
  /** A stop (SIGINT/SIGTERM) ends the prompt at once with 'wait'; the loop then stops. */
  signal?: AbortSignal;
}

export function askUsageLimitChoice(options: UsageLimitPromptOptions): Promise<UsageLimitChoice> {
  const { stdin, stderr } = options;
  if (!stdin) return Promise.resolve('wait');
  if (!stdin.isTTY) return readPipedChoice(stdin, options);
  if (!stderr.isTTY) return Promise.resolve('wait');
  stderr.write(
    `\nThe Claude usage limit resets at ${formatClockTime(options.resumeAt)}.\n` +
      `  1) wait until then (default in ${Math.round(options.timeoutMs / 1000)}s)\n  2) exit\n  3) retry now\nChoice [1]: `,
  );
  return new Promise((resolve) => {
    const wasRaw = stdin.isRaw;
    const done = (choice: UsageLimitChoice) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stdin.off('data', onData);
      stdin.setRawMode?.(wasRaw);
      stdin.pause();
      stderr.write(`${choice}\n`);
      resolve(choice);
    };
    const onData = (data: Buffer) => {
      const key = data.toString().trim();
      if (key === '\u0003') done('exit');
      else done(choiceForKey(key));
    };
    const onAbort = () => done('wait');
    const timer = setTimeout(() => done('wait'), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** One character from a non-terminal stdin; the rest stays there for a later prompt. */
function readPipedChoice(stdin: NodeJS.ReadStream, options: UsageLimitPromptOptions): Promise<UsageLimitChoice> {
  const { stderr } = options;
  if (stdin.readableEnded || stdin.destroyed || options.signal?.aborted) return Promise.resolve('wait');
  return new Promise((resolve) => {
    const done = (key: string | null) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onEnd);
      stdin.off('readable', onReadable);
      stdin.off('end', onEnd);
      stdin.off('error', onEnd);
      stdin.pause();
      const choice = key === null ? 'wait' : choiceForKey(key);
      if (key !== null) stderr.write(`Usage limit: read choice ${JSON.stringify(key)} from stdin: ${choice}\n`);
      resolve(choice);
    };
    const onReadable = () => {
      const chunk = stdin.read(1) as Buffer | string | null;
      if (chunk !== null) done(chunk.toString());
    };
    const onEnd = () => done(null);
    const timer = setTimeout(onEnd, options.timeoutMs);
    options.signal?.addEventListener('abort', onEnd, { once: true });
    stdin.on('readable', onReadable);
    stdin.once('end', onEnd);
    stdin.once('error', onEnd);
  });
}

function choiceForKey(key: string): UsageLimitChoice {
  if (key === '2') return 'exit';
  if (key === '3') return 'retry';
  return 'wait';
}
