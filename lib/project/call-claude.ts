// One headless Claude Code run for ralph-import (conversion or plan generation): argv array,
// prompt on stdin, `--output-format json`; the final `type:"result"` object decides success
// (claude-cli-contract rules 1–3: exit 0 does not prove success, and json may be an array).

import type { ProcessRunner } from '../platform/process.js';

export interface CallClaudeOptions {
  /** The CLAUDE_CODE_CMD argv, e.g. ['claude'] or ['npx', '@anthropic-ai/claude-code']. */
  command: readonly string[];
  /** Flags after the command (--print, --output-format json, tools …). */
  args: readonly string[];
  prompt: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  runner: ProcessRunner;
  timeoutMs: number;
}

export type CallClaudeResult = { ok: true; text: string } | { ok: false; message: string };

interface ResultObject {
  type?: unknown;
  is_error?: unknown;
  result?: unknown;
  summary?: unknown;
  subtype?: unknown;
  errors?: unknown;
  metadata?: { has_errors?: unknown; completion_status?: unknown; error_message?: unknown; error_code?: unknown };
}

export async function callClaude(options: CallClaudeOptions): Promise<CallClaudeResult> {
  const [cmd, ...prefix] = options.command;
  if (cmd === undefined) return { ok: false, message: 'CLAUDE_CODE_CMD is empty' };
  const run = await options.runner.run(cmd, [...prefix, ...options.args], {
    cwd: options.cwd,
    env: options.env,
    input: options.prompt,
    timeoutMs: options.timeoutMs,
  });
  if (run.spawnError) {
    return {
      ok: false,
      message:
        run.spawnError.code === 'ENOENT'
          ? `Claude Code CLI not found: ${cmd} (install it with: npm install -g @anthropic-ai/claude-code, or set CLAUDE_CODE_CMD)`
          : `could not start ${cmd}: ${run.spawnError.message}`,
    };
  }
  if (run.timedOut) return { ok: false, message: `Claude Code did not finish within ${Math.round(options.timeoutMs / 60_000)} minutes` };
  const result = findResultObject(run.stdout);
  if (result) {
    const failure = describeFailure(result);
    if (failure) return { ok: false, message: failure };
  }
  if (run.code !== 0) {
    const detail = firstLine(run.stderr) ?? firstLine(run.stdout) ?? '';
    return { ok: false, message: `exit code ${run.code ?? run.signal}${detail ? `: ${detail}` : ''}` };
  }
  if (!result) return { ok: true, text: run.stdout.trim() };
  const text = typeof result.result === 'string' ? result.result : typeof result.summary === 'string' ? result.summary : '';
  return { ok: true, text };
}

/** The result object of json output (one object, or the last `type:"result"` of an array or stream). */
export function findResultObject(stdout: string): ResultObject | undefined {
  const trimmed = stdout.trim();
  const whole = parseJson(trimmed);
  if (isObject(whole)) return whole;
  const items = Array.isArray(whole) ? whole : trimmed.split(/\r?\n/).map((line) => parseJson(line.trim()));
  return items.filter(isObject).filter((item) => item.type === 'result').pop();
}

function isObject(value: unknown): value is ResultObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeFailure(result: ResultObject): string | undefined {
  const meta = result.metadata;
  if (meta && meta.has_errors === true && meta.completion_status === 'failed') {
    const code = typeof meta.error_code === 'string' ? ` (${meta.error_code})` : '';
    return `${typeof meta.error_message === 'string' ? meta.error_message : 'the agent reported a failure'}${code}`;
  }
  if (result.is_error !== true) return undefined;
  if (typeof result.result === 'string' && result.result.trim()) return result.result.trim();
  if (Array.isArray(result.errors) && result.errors.length > 0) return result.errors.map(String).join('; ');
  return `the agent reported an error (${typeof result.subtype === 'string' ? result.subtype : 'is_error'})`;
}

function parseJson(text: string): unknown {
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function firstLine(text: string): string | undefined {
  return text.split(/\r?\n/).map((line) => line.trim()).find((line) => line !== '');
}
