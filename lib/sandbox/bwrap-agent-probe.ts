// `ralph --doctor` under --sandbox bwrap: runs the agent's `--version` inside the very sandbox a
// loop would build, so an agent the sandbox cannot see or start fails here, with bwrap's own
// words, instead of failing every loop of the run.

import { splitCommand } from '../text/command-words.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { RalphError } from '../errors.js';
import type { SandboxNetwork } from './sandbox-settings.js';
import type { ProcessRunner, RunResult } from '../platform/process.js';
import { createBwrapSandbox } from './bwrap-sandbox.js';

export interface ProbeAgentInBwrapOptions {
  /** The agent command as configured (words: a wrapper and its arguments are kept). */
  agentCommand: string;
  projectDir: string;
  homeDir: string;
  env: NodeJS.ProcessEnv;
  binds: readonly string[];
  network: SandboxNetwork;
  /** SANDBOX_ENV, as the run would pass it. */
  passEnv: readonly string[];
  processRunner: ProcessRunner;
}

const PROBE_TIMEOUT_MS = 30_000;
const quiet = { log: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, success: () => undefined, debug: () => undefined };

/** Resolves when `<agent> --version` exits 0 inside the sandbox; else a RalphError saying what it printed. */
export async function probeAgentInBwrap(options: ProbeAgentInBwrapOptions): Promise<void> {
  const [cmd, ...prefix] = splitCommand(options.agentCommand);
  if (cmd === undefined) return;
  const result = await runInBwrap(options, cmd, [...prefix, '--version']);
  if (result.code === 0) return;
  const said = stripTerminalControls((result.stderr.trim() || result.stdout.trim()).split('\n')[0] ?? '').slice(0, 200);
  const why = result.timedOut ? 'timed out' : said || result.spawnError?.message || `exit ${String(result.code)}`;
  throw new RalphError('sandbox_agent', `'${options.agentCommand} --version' fails inside the sandbox (${why})`, {
    details: ['Every loop would fail the same way. Nothing was run.'],
    hint: 'add what the agent needs (absolute paths, comma-separated) to SANDBOX_BWRAP_BIND in .ralphrc; they are shown to it read-only',
  });
}

/** Runs one command (a question to an agent CLI) inside a sandbox of its own, as a loop would build it. */
export async function runInBwrap(options: Omit<ProbeAgentInBwrapOptions, 'agentCommand'>, cmd: string, args: readonly string[]): Promise<RunResult> {
  const sandbox = createBwrapSandbox({ ...options, logger: quiet });
  await sandbox.start();
  try {
    const wrapped = sandbox.wrap({ cmd, args: [...args], stdin: '' }, options.env);
    return await options.processRunner.run(wrapped.cmd, wrapped.args, {
      cwd: options.projectDir,
      env: wrapped.env,
      inheritFiles: wrapped.inheritFiles,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
  } finally {
    await sandbox.afterCall();
    await sandbox.stop();
  }
}
