// The OpenCode adapter (`opencode-ai`, recorded at 1.18.33): `opencode run --format json`. The
// message goes on stdin: `run` appends piped stdin to its (here empty) message argument, so argv
// holds no project text. ALLOWED_TOOLS becomes OpenCode's permission config, passed in
// OPENCODE_CONFIG_CONTENT merged into the user's own. Usage and cost come per step: summed.

import { join } from 'node:path';
import type { AgentFailureResult } from './agent-failure.js';
import { splitCommand } from '../text/command-words.js';
import { parseVersion } from '../text/version.js';
import { appendLoopContext } from './loop-context.js';
import type { AgentAdapter, AgentInvocation, AgentOutputOptions, AgentOutputReader, AgentRunFacts, InvocationOptions } from './agent-adapter.js';
import { emptySummary, type AgentResultSummary, type PermissionDenial } from './claude-output.js';
import { createJsonLinesReader, num, str, type EventFold } from './json-lines-reader.js';
import { appendBounded } from './text-output-reader.js';
import { mergeOpenCodeConfig, openCodePermissions } from './opencode-permissions.js';
import { asRecord, emptyStreamSnapshot } from './stream-json.js';
import { firstLine, lastLine } from '../text/lines.js';

const AUTH_FIX =
  "the model provider refused OpenCode's credentials: run `opencode auth login` for that provider (or export its API key, e.g. OPENAI_API_KEY or ANTHROPIC_API_KEY), then start ralph again";

/** What a tool part's error says when `run` auto-rejected a permission prompt (`perm_ask`) or a rule denied the call. */
const PERMISSION_ERROR_RE = /rejected permission|specified a rule which prevents you from using|permission (?:denied|rejected)/i;
const QUOTA_RE = /quota|insufficient_quota|billing/i;

export const openCodeAdapter: AgentAdapter = {
  name: 'opencode',
  label: 'OpenCode',
  commandKey: 'OPENCODE_CMD',
  defaultCommand: 'opencode',
  installHint: 'npm install -g opencode-ai',
  parseVersion,
  capabilities: {
    structuredOutput: true,
    tokenUsage: true,
    cost: true,
    permissionDenials: true,
    limitDetection: true,
    sessionContinuity: 'resume-id',
    streaming: true,
    toolRestrictions: 'approximate',
  },
  buildInvocation: buildOpenCodeInvocation,
  createOutputReader: createOpenCodeOutputReader,
  classifyFailure: classifyOpenCodeRun,
  isValidSessionId: isOpenCodeSessionId,
  // Its providers' keys (the model decides which one it uses) and its own settings.
  sandboxEnv: [
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'OPENROUTER_API_KEY',
    'GROQ_API_KEY',
    'XAI_API_KEY',
    'DEEPSEEK_API_KEY',
    'MISTRAL_API_KEY',
    'OPENCODE_*',
  ],
  startupWarnings: openCodeStartupWarnings,
  credentials: {
    envVars: [
      'ANTHROPIC_API_KEY',
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'OPENROUTER_API_KEY',
      'GROQ_API_KEY',
      'XAI_API_KEY',
      'DEEPSEEK_API_KEY',
      'MISTRAL_API_KEY',
    ],
    // Written by `opencode auth login`.
    files: (env, home) => [join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'opencode', 'auth.json')],
    // A provider may also carry its key in OpenCode's own config files.
    missing: 'warn',
    fix: "run `opencode auth login`, or export the provider's API key (e.g. ANTHROPIC_API_KEY)",
  },
};

export function buildOpenCodeInvocation(options: InvocationOptions): AgentInvocation {
  const [cmd, ...prefix] = splitCommand(options.command);
  if (!cmd) throw new Error('OPENCODE_CMD is empty');
  const args = [...prefix, 'run'];
  if (options.outputFormat === 'json') args.push('--format', 'json');
  if (options.model) args.push('-m', options.model);
  if (options.resumeSessionId) {
    if (!isOpenCodeSessionId(options.resumeSessionId)) throw new Error('resume session id is not an OpenCode session id');
    args.push('-s', options.resumeSessionId);
  }
  const invocation: AgentInvocation = { cmd, args, stdin: appendLoopContext(options.prompt, options.loopContext) };
  const permissions = openCodePermissions(options.allowedTools);
  if (permissions) {
    invocation.env = { OPENCODE_CONFIG_CONTENT: mergeOpenCodeConfig(options.inheritedEnv?.OPENCODE_CONFIG_CONTENT, permissions.permission) };
  }
  return invocation;
}

export function openCodeStartupWarnings(options: { allowedTools: string[]; effort?: string }): string[] {
  const warnings: string[] = [];
  const permissions = openCodePermissions(options.allowedTools);
  if (!permissions) warnings.push('OpenCode runs with its own permission config: ALLOWED_TOOLS is empty, so ralph sets none');
  else if (permissions.unmapped.length > 0) {
    warnings.push(`OpenCode has no permission for ${permissions.unmapped.join(', ')} (from ALLOWED_TOOLS): not mapped`);
  }
  if (options.effort) warnings.push(`OpenCode has no effort flag: CLAUDE_EFFORT=${options.effort} is not used (set it per model in OpenCode's config)`);
  return warnings;
}

/** `ses_` and letters/digits, as OpenCode prints them; nothing else may become `-s`'s value. */
export function isOpenCodeSessionId(id: string): boolean {
  return /^ses_[A-Za-z0-9]{8,64}$/.test(id);
}

export function createOpenCodeOutputReader(options: AgentOutputOptions): AgentOutputReader {
  return createJsonLinesReader(options, createOpenCodeFold(options));
}

/** `run --format json` events (step_start, text, tool_use, step_finish, error) onto one summary. */
export function createOpenCodeFold(options: { showToolArgs: boolean }): EventFold {
  let sessionId: string | null = null;
  let text = '';
  let steps = 0;
  let costUsd: number | null = null;
  const usage = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  const denials: PermissionDenial[] = [];
  const errors: string[] = [];
  let apiErrorStatus: number | null = null;
  let apiErrorType: string | null = null;
  let failed = false;
  return {
    // The last step ends with reason "stop"; an error event ends the run too.
    isFinal: (event) => event.type === 'error' || (event.type === 'step_finish' && asRecord(event.part)?.reason === 'stop'),
    push(event) {
      sessionId = nonEmpty(event.sessionID) ?? sessionId;
      const part = asRecord(event.part) ?? {};
      switch (event.type) {
        case 'text': {
          const content = str(part.text) ?? '';
          text = appendBounded(text, text !== '' && !text.endsWith('\n') ? `\n${content}` : content);
          return content ? { text: content.endsWith('\n') ? content : `${content}\n` } : null;
        }
        case 'tool_use': {
          const name = nonEmpty(part.tool) ?? 'unknown';
          const state = asRecord(part.state) ?? {};
          const input = asRecord(state.input) ?? {};
          if (state.status === 'error' && PERMISSION_ERROR_RE.test(str(state.error) ?? '')) {
            denials.push({ toolName: name, toolUseId: str(part.callID), input });
          }
          const arg = firstLine(str(input.command) ?? str(input.filePath) ?? str(input.path) ?? str(input.pattern) ?? str(input.url) ?? '').slice(0, 120);
          return { text: options.showToolArgs && arg ? `\n⚡ [${name}] ${arg}\n` : `\n⚡ [${name}]\n`, tool: arg ? `${name}: ${arg}` : name };
        }
        case 'step_finish': {
          steps++;
          const tokens = asRecord(part.tokens) ?? {};
          const cache = asRecord(tokens.cache) ?? {};
          usage.input += num(tokens.input) ?? 0;
          // Reasoning tokens are billed as output.
          usage.output += (num(tokens.output) ?? 0) + (num(tokens.reasoning) ?? 0);
          usage.cacheRead += num(cache.read) ?? 0;
          usage.cacheCreation += num(cache.write) ?? 0;
          const cost = num(part.cost);
          if (cost !== null) costUsd = (costUsd ?? 0) + cost;
          return null;
        }
        case 'error': {
          failed = true;
          const error = asRecord(event.error) ?? {};
          const data = asRecord(error.data) ?? {};
          apiErrorType = nonEmpty(error.name);
          apiErrorStatus = num(data.statusCode);
          const message = nonEmpty(data.message) ?? nonEmpty(error.message) ?? apiErrorType ?? 'error';
          // The body says which 429 it is (`insufficient_quota` vs `rate_limit_exceeded`).
          errors.push(QUOTA_RE.test(str(data.responseBody) ?? '') && !QUOTA_RE.test(message) ? `${message} (quota)` : message);
          return { text: `\n❌ ${message}\n` };
        }
        default:
          return null;
      }
    },
    summarize({ outputLength, garbageLines, plainTextHead }): AgentResultSummary {
      const summary = emptySummary('stream-json', outputLength);
      return {
        ...summary,
        hasResult: steps > 0 && !failed,
        hasResultField: steps > 0,
        resultText: text,
        isError: failed,
        subtype: failed ? 'error' : steps > 0 ? 'success' : null,
        sessionId,
        usage,
        // Per run, never cumulative over a resumed session: the run's own cost too.
        totalCostUsd: costUsd,
        sinceLastResultCostUsd: costUsd,
        permissionDenials: denials,
        apiErrorStatus,
        apiErrorType,
        errors,
        numTurns: steps,
        stream: { ...emptyStreamSnapshot(), sessionId, sawInit: sessionId !== null, garbageLines, plainTextHead },
      };
    },
  };
}

/** How an OpenCode run ended: its `error` event (an APIError with the HTTP status), else stderr and the exit code. */
export function classifyOpenCodeRun(run: AgentRunFacts): AgentFailureResult {
  if (run.timedOut) return { kind: 'timeout' };
  const s = run.summary;
  const stderr = stripAnsi(run.stderrTail);
  const message = s.errors.at(-1) ?? (lastLine(stderr) || `OpenCode exited with code ${run.exitCode ?? 'unknown'}`);
  if (s.isError) {
    const status = s.apiErrorStatus;
    if (status === 401 || status === 403 || s.apiErrorType === 'ProviderAuthError') return { kind: 'auth', message, fix: AUTH_FIX };
    // A quota states no reset (the `quota` recording): ralph's usual wait applies.
    if (status === 429 && QUOTA_RE.test(message))
      return { kind: 'usage_limit', message, usageLimit: { kind: 'usage_limit', source: 'api_error', rawText: message } };
    // OpenCode retried these itself (~9 times) before it gave up: back off, then go on.
    if (status === 429) return { kind: 'transient', reason: 'rate_limited', message };
    if (status !== null && status >= 500 && status <= 599) return { kind: 'transient', reason: 'server_error', message };
    if (status === 408) return { kind: 'transient', reason: 'request_timeout', message };
    return { kind: 'failed', message };
  }
  if (run.exitCode !== 0) {
    // `rbad`: "Error: Session not found" on stderr, exit 1, no JSON.
    if (/Session not found/i.test(stderr)) return { kind: 'session_not_found', message: 'Session not found' };
    return { kind: 'failed', message };
  }
  if (run.outputFormat === 'text' || s.hasResult) return { kind: 'ok' };
  return { kind: 'failed', message: s.stream?.garbageLines ? 'agent output was not valid JSON events' : 'agent output had no result' };
}

function stripAnsi(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
