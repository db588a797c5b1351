// One headless agent call outside the loop (ralph-import's conversion and plan generation),
// built, read and judged by the same adapter as a loop's call: the same argv, the same parser,
// the same failure kinds. The prompt goes on stdin; the final answer's text is the result. It
// runs where a loop's call would (the agent's sandbox: without one, never as root), and the
// sandbox's after-call clean-up runs however it ended.

import type { ProcessRunner } from '../platform/process.js';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { firstLine } from '../text/lines.js';

export interface OneShotAgent {
  adapter: AgentAdapter;
  /** The agent's configured command (words, not a shell line). */
  command: string;
  model?: string;
  /** Where the call runs, started by the caller (ralph-import: the host, as the folder's owner when ralph is root). */
  sandbox: Sandbox;
  /** Aborted when the user stops the command (Ctrl-C): the call's process group is stopped. */
  stop?: AbortSignal;
}

export interface CallAgentOptions {
  agent: OneShotAgent;
  prompt: string;
  allowedTools: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  runner: ProcessRunner;
  timeoutMs: number;
  now: () => number;
}

export type CallAgentResult = { ok: true; text: string } | { ok: false; message: string };

const STDERR_TAIL_CHARS = 8192;

export async function callAgent(options: CallAgentOptions): Promise<CallAgentResult> {
  const { adapter } = options.agent;
  let invocation;
  try {
    invocation = adapter.buildInvocation({
      command: options.agent.command,
      prompt: options.prompt,
      outputFormat: 'json',
      model: options.agent.model,
      allowedTools: options.allowedTools,
      isolated: true,
      inheritedEnv: options.env,
    });
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const { sandbox } = options.agent;
  const wrapped = sandbox.wrap(invocation, options.env);
  let run;
  try {
    run = await options.runner.run(wrapped.cmd, wrapped.args, {
      cwd: options.cwd,
      env: wrapped.env,
      input: wrapped.stdin,
      // A sandbox's own files (bubblewrap's seccomp filter), as a loop's call gets them.
      ...(wrapped.inheritFiles ? { inheritFiles: wrapped.inheritFiles } : {}),
      timeoutMs: options.timeoutMs,
      ...(options.agent.stop ? { signal: options.agent.stop } : {}),
      // The agent's CLI, on the user's whole PATH.
      projectCode: true,
    });
  } finally {
    await sandbox.afterCall();
  }
  if (run.spawnError) {
    return {
      ok: false,
      message:
        run.spawnError.code === 'ENOENT'
          ? `${adapter.label} CLI not found: ${invocation.cmd} (install it with: ${adapter.installHint}, or set ${adapter.commandKey})`
          : `could not start ${invocation.cmd}: ${run.spawnError.message}`,
    };
  }
  if (run.aborted) return { ok: false, message: `${adapter.label} was stopped (interrupted)` };
  if (run.timedOut) return { ok: false, message: `${adapter.label} did not finish within ${Math.round(options.timeoutMs / 60_000)} minutes` };
  const reader = adapter.createOutputReader({ outputFormat: 'json', showToolArgs: false });
  reader.push(Buffer.from(run.stdout, 'utf8'));
  const { summary } = reader.finish();
  const failure = adapter.classifyFailure(
    { exitCode: run.code, timedOut: false, summary, stderrTail: run.stderr.slice(-STDERR_TAIL_CHARS), outputFormat: 'json' },
    options.now(),
  );
  if (failure.kind === 'ok') return { ok: true, text: summary.resultText.trim() };
  if (failure.kind === 'auth' || failure.kind === 'billing') return { ok: false, message: `${failure.message} (${failure.fix})` };
  if (failure.kind === 'timeout') return { ok: false, message: `${adapter.label} timed out` };
  // The agent's own error text when it answered; else how the process ended, with its stderr.
  if (summary.hasResult) return { ok: false, message: failure.message };
  const detail = firstLine(run.stderr) || failure.message;
  return { ok: false, message: run.code ? `exit code ${run.code}: ${detail}` : detail };
}
