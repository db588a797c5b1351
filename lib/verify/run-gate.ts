// The verification gate: the test command, then each quality gate, run one after another in
// the project within one time limit (VERIFY_TIMEOUT_MINUTES for the whole gate). Each command
// runs as argv when it has no shell syntax, else through `sh -c` (see command-line.ts); a
// recognised runner is asked for a structured report written to a temp dir the gate owns and
// removes. Every command runs even when an earlier one failed, so the agent sees all problems.
// The commands run code the agent wrote, so under a sandbox they run inside it, as the agent
// does (the sandbox's wrap()); the report dir is then inside the project, where both sides see it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../platform/clock.js';
import type { ProcessRunner } from '../platform/process.js';
import { planCommand } from './command-line.js';
import { interpretCommand } from './interpret-command.js';
import { runCommand } from './run-command.js';
import { planStructuredOutput } from './structured-output.js';
import { readPackageScripts } from './test-command.js';
import { combineVerification, type CommandRole, type CommandVerification, type VerificationResult } from './verification-result.js';
import { readTextIfPresent } from '../platform/read-text.js';
import { hostExecution, type Sandbox } from '../sandbox/sandbox.js';

export interface GateCommand {
  command: string;
  role: CommandRole;
}

export interface RunGateOptions {
  commands: GateCommand[];
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** Time limit for the whole gate (VERIFY_TIMEOUT_MINUTES × 60 000). */
  timeoutMs: number;
  /** SIGTERM → SIGKILL grace for a command that overruns (default 2 s). */
  graceMs?: number;
  processRunner: ProcessRunner;
  clock: Clock;
  /** Stops the running command (Ctrl-C); the rest are not started. */
  signal?: AbortSignal;
  /** Where report files go (default: a fresh dir under the OS temp dir). */
  tempDir?: string;
  /** Told when a process that escaped a command's group held its output open (it was closed). */
  onPipesHeldOpen?: (command: string) => void;
  /** Where the commands run: the run's sandbox (default: on the host, as given). */
  sandbox?: Pick<Sandbox, 'wrap' | 'pathInside'>;
}

/** A gate command as it is started: the argv (wrapped by the sandbox) and its full environment. */
export interface GateProcess {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Files given to it as file descriptors 3, … (the sandbox's seccomp filter). */
  inheritFiles?: readonly string[];
}

/** TEST_COMMAND first, then QUALITY_GATES in order. */
export function gateCommands(testCommand: string | null | undefined, qualityGates: readonly string[]): GateCommand[] {
  const commands: GateCommand[] = [];
  if (testCommand && testCommand.trim() !== '') commands.push({ command: testCommand.trim(), role: 'test' });
  for (const gate of qualityGates) commands.push({ command: gate, role: 'quality-gate' });
  return commands;
}

export async function runVerificationGate(options: RunGateOptions): Promise<VerificationResult> {
  const { clock } = options;
  const startedAt = clock.now();
  const deadline = startedAt + options.timeoutMs;
  const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), 'ralph-verify-'));
  const sandbox = options.sandbox ?? HOST;
  const scripts = readPackageScripts(options.projectDir);
  const results: CommandVerification[] = [];
  try {
    for (const [index, { command, role }] of options.commands.entries()) {
      const remaining = deadline - clock.now();
      if (options.signal?.aborted || remaining <= 0) {
        results.push(notRun(command, role, options.signal?.aborted ? 'interrupted before it started' : 'not run: the verification time limit was reached'));
        continue;
      }
      const reportPath = join(dir, `report-${index}`);
      // The runner writes its report where it runs; ralph reads it from the host.
      const plan = planStructuredOutput(planCommand(command).argv, { reportPath: sandbox.pathInside(reportPath), packageScripts: scripts });
      const started = buildGateProcess(plan.argv, options.env, sandbox);
      const run = await runCommand({
        argv: started.argv,
        cwd: options.projectDir,
        env: started.env,
        inheritFiles: started.inheritFiles,
        timeoutMs: remaining,
        graceMs: options.graceMs,
        processRunner: options.processRunner,
        clock,
        signal: options.signal,
      });
      if (run.pipesHeldOpen) options.onPipesHeldOpen?.(command);
      const reportText = plan.report?.kind === 'file' ? readTextIfPresent(reportPath) : undefined;
      results.push(interpretCommand({ command, role, plan, run, reportText, timeoutMs: options.timeoutMs, cwd: options.projectDir }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return combineVerification(results, clock.now() - startedAt);
}

const HOST: Pick<Sandbox, 'wrap' | 'pathInside'> = hostExecution();

/** The process a gate command starts as: wrapped by the sandbox like an agent call, with the gate's variables. */
export function buildGateProcess(argv: readonly string[], env: NodeJS.ProcessEnv, sandbox: Pick<Sandbox, 'wrap'>): GateProcess {
  const [cmd = '', ...args] = argv;
  const wrapped = sandbox.wrap({ cmd, args, stdin: '', env: gateVariables(env) }, env);
  return { argv: [wrapped.cmd, ...wrapped.args], env: wrapped.env, ...(wrapped.inheritFiles ? { inheritFiles: wrapped.inheritFiles } : {}) };
}

// Non-interactive and colourless: CI=true keeps vitest and jest out of watch mode; colour codes
// would only have to be stripped again. The user's own values win.
function gateVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return { CI: env.CI ?? 'true', NO_COLOR: env.NO_COLOR ?? '1', FORCE_COLOR: env.FORCE_COLOR ?? '0' };
}

function notRun(command: string, role: CommandRole, why: string): CommandVerification {
  return {
    command,
    role,
    status: 'error',
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    format: 'exit-code',
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [{ name: command, message: why }],
    failuresOmitted: 0,
    output: '',
  };
}
