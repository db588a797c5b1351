// runRalphInProcess(projectDir, argv, env): `ralph <argv>` that runs the loop, in the test's own
// process, through what the command line starts: its flags from the command line's own parser,
// runProject, a logger writing the project's .ralph/logs/ralph.log, the real clock, the
// environment runCli would give the command, and an error turned into its message and exit code
// by the command line's own funnel. The agent, git and the gate are real processes as before;
// what saves is the start of a ralph process (its module load and compile), about a fifth of a
// second of CPU each time. For a test whose point is the loop's decisions; what only the process
// shows (its start-up, its signals, what it prints to a terminal) is tested through runCli.

import { EventEmitter } from 'node:events';
import { homedir } from 'node:os';
import { onTestFinished } from 'vitest';
import { reportError } from '../../lib/cli/error-funnel.js';
import { parseRalphArgs, type RalphCliOptions } from '../../lib/cli/ralph/ralph-options.js';
import { runProject } from '../../lib/loop/run-project.js';
import { readParallel } from '../../lib/parallel/upcoming-units.js';
import { systemClock } from '../../lib/platform/clock.js';
import type { Deps } from '../../lib/platform/deps.js';
import { createLogger } from '../../lib/platform/logger.js';
import { nodeProcessRunner } from '../../lib/platform/process.js';
import { ralphPaths } from '../../lib/state/paths.js';
import { createRedactor } from '../../lib/text/redaction.js';
import { captureOutput } from './loop-harness.js';
import type { CliResult } from './run-cli.js';

/**
 * `ralph <argv>` in projectDir, in this process. Stop signals go to a stand-in, not to the
 * worker's own handlers (the test's end sends it SIGTERM if the loop still runs); a call to exit
 * throws.
 */
export async function runRalphInProcess(projectDir: string, argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extraEnv };
  const stdout = captureOutput();
  const stderr = captureOutput();
  const ended = (code: number): CliResult => ({ code, signal: null, stdout: stdout.text, stderr: stderr.text });
  // What the command would print and exit with (its error funnel).
  const funnel = (error: unknown) => ended(reportError(error, { write: (text) => stderr.write(text) }));
  let options: RalphCliOptions;
  try {
    options = parseRalphArgs(argv);
  } catch (error) {
    return funnel(error);
  }
  if (options.action !== 'run' || options.web)
    throw new Error(`runRalphInProcess runs the loop only, not ralph's ${options.web ? 'web view' : options.action} (use runCli)`);
  const redact = createRedactor(env);
  const verbose = options.flags.RALPH_VERBOSE === true;
  const logger = createLogger({ logFile: ralphPaths(projectDir).ralphLog, stderr, env, redact, clock: systemClock, verbose });
  // The command's home: os.homedir() in a process whose HOME is the one given.
  const homeDir = env.HOME ?? homedir();
  const deps: Deps = { clock: systemClock, env, cwd: projectDir, homeDir, processRunner: nodeProcessRunner, logger, stdout, stderr, redact };
  const signals = Object.assign(new EventEmitter(), {
    exit: ((code?: number) => {
      throw new Error(`process.exit(${code}) called`);
    }) as (code?: number) => never,
  });
  let parallel: number;
  try {
    parallel = readParallel({ projectDir, homeDir, env, flags: options.flags });
  } catch (error) {
    return funnel(error);
  }
  if (parallel > 1) throw new Error('runRalphInProcess runs one loop, not parallel units (use runCli)');
  const running = runProject({ projectDir, flags: options.flags, deps, signals: signals as never, fresh: options.fresh });
  stopWhenTheTestEnds(signals, running);
  try {
    return ended(await running);
  } catch (error) {
    return funnel(error);
  }
}

/**
 * A test that ends before the loop (it timed out, or an expectation threw first) stops it with
 * SIGTERM, as runCli stops its command: nothing the test started runs on in the worker after it.
 */
function stopWhenTheTestEnds(signals: EventEmitter, running: Promise<number>): void {
  let over = false;
  void running.then(
    () => (over = true),
    () => (over = true),
  );
  try {
    onTestFinished(() => {
      if (!over) signals.emit('SIGTERM', 'SIGTERM');
    });
  } catch {
    // not inside a test
  }
}
