// queueInProcess(projectDir, argv, env): `ralph-queue <argv>` in the test's own process, for a
// test that only sets a queue up (its subject is what runs the queue): the command's own parser
// and runQueueCommand, in projectDir, with the environment runCli would give the command (a fake
// gh on its PATH is still a process), a logger writing to captured output, and an error turned
// into its message and exit code by the command line's funnel. What saves is a ralph-queue start
// (about a tenth of a second of CPU). ralph-queue's own command line is tested through runCli.

import { homedir } from 'node:os';
import { reportError } from '../../lib/cli/error-funnel.js';
import { parseQueueArgs } from '../../lib/cli/queue/queue-args.js';
import { runQueueCommand } from '../../lib/cli/queue/queue-commands.js';
import { systemClock } from '../../lib/platform/clock.js';
import type { Deps } from '../../lib/platform/deps.js';
import { createLogger } from '../../lib/platform/logger.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { createRedactor } from '../../lib/text/redaction.js';
import { captureOutput } from './loop-harness.js';
import type { CliResult } from './run-cli.js';

export async function queueInProcess(projectDir: string, argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extraEnv };
  const stdout = captureOutput();
  const stderr = captureOutput();
  const ended = (code: number): CliResult => ({ code, signal: null, stdout: stdout.text, stderr: stderr.text });
  try {
    const command = parseQueueArgs(argv);
    if (typeof command === 'string' || command.kind === 'process')
      throw new Error(`queueInProcess sets a queue up; run ralph-queue ${argv.join(' ')} with runCli`);
    const redact = createRedactor(env);
    const logger = createLogger({ stderr, env, redact, clock: systemClock });
    const deps: Deps = {
      clock: systemClock,
      env,
      cwd: projectDir,
      homeDir: env.HOME ?? homedir(),
      processRunner: nodeProcessRunner,
      logger,
      stdout,
      stderr,
      redact,
    };
    return ended(await runQueueCommand(command, { projectDir, flags: {}, write: (text) => stdout.write(text), deps }));
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('queueInProcess')) throw error;
    return ended(reportError(error, { write: (text) => stderr.write(text) }));
  }
}
