// The OpenAI Codex CLI adapter (`@openai/codex`, recorded with 0.169.0): `codex exec --json`,
// the prompt and loop context on stdin (`-`), resume with `resume <thread_id>`, ALLOWED_TOOLS
// mapped onto the sandbox mode, and failures classified from the CLI's real outputs (the
// recordings under tests/fixtures/agent-clis/codex-0.169.0).

import { join } from 'node:path';
import type { AgentFailureResult } from './agent-failure.js';
import { splitCommand } from '../text/command-words.js';
import { parseVersion } from '../text/version.js';
import { appendLoopContext } from './loop-context.js';
import { parseResetTime } from '../limits/reset-time.js';
import type { AgentAdapter, AgentInvocation, AgentRunFacts, InvocationOptions } from './agent-adapter.js';
import { createCodexOutputReader } from './codex-events.js';
import { isSafeSessionId } from './session-id.js';

export const codexAdapter: AgentAdapter = {
  name: 'codex',
  label: 'Codex',
  commandKey: 'CODEX_CMD',
  defaultCommand: 'codex',
  installHint: 'npm install -g @openai/codex',
  parseVersion,
  capabilities: {
    structuredOutput: true,
    tokenUsage: true,
    cost: false,
    permissionDenials: false,
    limitDetection: true,
    sessionContinuity: 'resume-id',
    streaming: true,
    toolRestrictions: 'approximate',
    cumulativeUsage: true,
  },
  buildInvocation: buildCodexInvocation,
  createOutputReader: createCodexOutputReader,
  classifyFailure: classifyCodexRun,
  isValidSessionId: isSafeSessionId,
  sandboxEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT', 'CODEX_HOME', 'CODEX_*'],
  credentials: {
    envVars: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    // `codex login` writes $CODEX_HOME/auth.json (default ~/.codex).
    files: (env, home) => [join(env.CODEX_HOME?.trim() || join(home, '.codex'), 'auth.json')],
    // A custom model provider may sign in some other way.
    missing: 'warn',
    fix: 'run: codex login (or export OPENAI_API_KEY)',
  },
  startupWarnings: ({ allowedTools }) => [
    `Codex cannot honour ALLOWED_TOOLS tool by tool: it runs with the sandbox ${sandboxFor(allowedTools)} ` +
      '(workspace-write when a Write, Edit or Bash tool is allowed, else read-only)',
  ],
};

/** Tools whose use needs a writable workspace (Bash can write whatever its command is). */
const WRITING_TOOL = /^(?:Write|Edit|MultiEdit|NotebookEdit|Bash)\b/;

export function sandboxFor(allowedTools: string[]): 'workspace-write' | 'read-only' {
  return allowedTools.some((tool) => WRITING_TOOL.test(tool.trim())) ? 'workspace-write' : 'read-only';
}

export function buildCodexInvocation(options: InvocationOptions): AgentInvocation {
  const [cmd, ...prefix] = splitCommand(options.command);
  if (!cmd) throw new Error('CODEX_CMD is empty');
  // --skip-git-repo-check: ralph runs its own project checks; Codex would refuse a project
  // that is not (yet) a git repository.
  const args = [...prefix, 'exec', '--json', '--skip-git-repo-check', '-s', sandboxFor(options.allowedTools)];
  if (options.model) args.push('-m', options.model);
  // Effort is a config override; only a plain word reaches it (it is read as TOML).
  if (options.effort && /^[a-z]+$/.test(options.effort)) args.push('-c', `model_reasoning_effort="${options.effort}"`);
  if (options.resumeSessionId) {
    if (!isSafeSessionId(options.resumeSessionId)) throw new Error('resume session id is not a session id');
    args.push('resume', options.resumeSessionId);
  }
  // `-` (or no prompt) makes `exec` and `exec resume` read the prompt from stdin: no project
  // text in argv.
  args.push('-');
  return { cmd, args, stdin: appendLoopContext(options.prompt, options.loopContext) };
}

const AUTH_FIX =
  'sign Codex in with `codex login` (ChatGPT account) or export a valid OPENAI_API_KEY (or the env_key of your model provider), then start ralph again';

const NO_ROLLOUT_RE = /no rollout found for thread id|thread\/resume failed/i;
const AUTH_RE =
  /\b401\b|Unauthorized|Incorrect API key|invalid[_ ]api[_ ]key|Missing environment variable: `[^`]*(?:KEY|TOKEN)[^`]*`|Not logged in|token (?:has )?expired|refresh token/i;
const USAGE_RE = /insufficient_quota|Quota exceeded|usage_limit_reached|You['’]ve hit your usage limit/i;
const RATE_RE = /\b429\b|Too Many Requests|rate limit/i;
const NETWORK_RE = /stream disconnected|error sending request|waiting for network|failed to lookup address|Connection (?:refused|reset|failed)|timed out/i;
const SERVER_RE = /\b5\d\d\b|high demand|Internal Server Error|overloaded|temporar(?:y|ily)/i;

/** How a Codex run ended, from its events, stderr and exit code. */
export function classifyCodexRun(run: AgentRunFacts, now: number): AgentFailureResult {
  if (run.timedOut) return { kind: 'timeout' };
  const s = run.summary;
  if (run.exitCode === 0 && !s.isError) {
    return s.hasResult ? { kind: 'ok' } : { kind: 'failed', message: 'agent output had no completed turn' };
  }
  const stderr = run.stderrTail;
  if (NO_ROLLOUT_RE.test(stderr)) return { kind: 'session_not_found', message: matchingLine(stderr, NO_ROLLOUT_RE) ?? 'session not found' };
  const message = failureMessage(run);
  if (USAGE_RE.test(message)) {
    const resetAt = parseResetTime(message.replace(/\btry again (in|at)\b/i, 'resets $1'), now);
    return {
      kind: 'usage_limit',
      usageLimit: { kind: 'usage_limit', source: 'text', rawText: message, ...(resetAt !== null ? { resetAt } : {}) },
      message,
    };
  }
  if (AUTH_RE.test(message)) return { kind: 'auth', message, fix: AUTH_FIX };
  // Codex retried five times before giving up ("exceeded retry limit, last status: 429"):
  // ralph's own backoff follows.
  if (RATE_RE.test(message)) return { kind: 'transient', reason: 'rate_limited', message };
  if (NETWORK_RE.test(message)) return { kind: 'transient', reason: 'network', message };
  if (SERVER_RE.test(message)) return { kind: 'transient', reason: 'server_error', message };
  return { kind: 'failed', message: message || `codex exited with code ${run.exitCode ?? 'unknown'}` };
}

/** turn.failed's message, else the last error event, else the last line of stderr (no JSON at all). */
function failureMessage(run: AgentRunFacts): string {
  const errors = run.summary.errors;
  const last = errors[errors.length - 1];
  if (last) return last.trim();
  const lines = run.stderrTail
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^WARNING: proceeding|^Reading additional input/.test(l));
  return lines.find((l) => /^Error:/.test(l)) ?? lines[lines.length - 1] ?? '';
}

function matchingLine(text: string, re: RegExp): string | undefined {
  return text
    .split('\n')
    .find((l) => re.test(l))
    ?.trim();
}
