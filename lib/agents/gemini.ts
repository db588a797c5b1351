// The Gemini CLI adapter (`@google/gemini-cli`, recorded at 0.61.0): `gemini -p … -o stream-json`.
// The prompt and the loop context go on stdin: the CLI reads piped stdin and appends the `-p`
// value to it (`-p`: "Appended to input on stdin (if any)"), so argv carries only a fixed
// instruction and no project text. Its exit code is the HTTP status of a fatal API error mod 256.

import { join } from 'node:path';
import type { AgentFailureResult } from './agent-failure.js';
import { splitCommand } from '../text/command-words.js';
import { parseVersion } from '../text/version.js';
import { appendLoopContext } from './loop-context.js';
import type { AgentAdapter, AgentInvocation, AgentOutputOptions, AgentOutputReader, AgentRunFacts, InvocationOptions } from './agent-adapter.js';
import { emptySummary, type AgentResultSummary } from './claude-output.js';
import { createJsonLinesReader, num, str, type EventFold } from './json-lines-reader.js';
import { appendBounded } from './text-output-reader.js';
import { asRecord, emptyStreamSnapshot } from './stream-json.js';
import { firstLine } from '../text/lines.js';

/** The whole of `-p`: the CLI puts it after what came on stdin. */
export const GEMINI_PROMPT_FLAG = 'Follow the instructions above.';

// Exit codes of the CLI's fatal errors (FatalAuthenticationError 41, FatalInputError 42) and of
// API errors (status mod 256).
const EXIT_AUTH_SETTINGS = 41;
const EXIT_INPUT = 42;
const EXIT_HTTP_401 = 401 % 256;
const EXIT_HTTP_403 = 403 % 256;
const EXIT_HTTP_429 = 429 % 256;

const API_KEY_FIX =
  'GEMINI_API_KEY (or GOOGLE_API_KEY) is not accepted: export a valid key from https://aistudio.google.com/apikey, or run `gemini` once and sign in with Google';
const AUTH_SETTINGS_FIX =
  'the Gemini CLI has no auth method: export GEMINI_API_KEY, or run `gemini` once and choose how to sign in (it is saved in ~/.gemini/settings.json)';

export const geminiAdapter: AgentAdapter = {
  name: 'gemini',
  label: 'Gemini CLI',
  commandKey: 'GEMINI_CMD',
  defaultCommand: 'gemini',
  installHint: 'npm install -g @google/gemini-cli',
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
  },
  buildInvocation: buildGeminiInvocation,
  createOutputReader: createGeminiOutputReader,
  classifyFailure: classifyGeminiRun,
  isValidSessionId: isGeminiSessionId,
  sandboxEnv: [
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GOOGLE_GENAI_USE_VERTEXAI',
    'GOOGLE_GENAI_USE_GCA',
    'GOOGLE_CLOUD_PROJECT',
    'GOOGLE_CLOUD_LOCATION',
    'GEMINI_*',
  ],
  startupWarnings: geminiStartupWarnings,
  credentials: {
    envVars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA'],
    // A Google sign-in made with `gemini` itself.
    files: (_env, home) => [join(home, '.gemini', 'oauth_creds.json')],
    missing: 'fail',
    fix: 'export GEMINI_API_KEY (https://aistudio.google.com/apikey), or run `gemini` once and sign in with Google',
  },
};

export function buildGeminiInvocation(options: InvocationOptions): AgentInvocation {
  const [cmd, ...prefix] = splitCommand(options.command);
  if (!cmd) throw new Error('GEMINI_CMD is empty');
  const args = [...prefix, '-p', GEMINI_PROMPT_FLAG];
  if (options.outputFormat === 'json') args.push('-o', 'stream-json');
  if (options.model) args.push('-m', options.model);
  if (options.resumeSessionId) {
    if (!isGeminiSessionId(options.resumeSessionId)) throw new Error('resume session id is not a Gemini session id');
    args.push('-r', options.resumeSessionId);
  }
  args.push('--approval-mode', approvalModeFor(options.allowedTools));
  return { cmd, args, stdin: appendLoopContext(options.prompt, options.loopContext) };
}

const WRITING_TOOL = /^(?:Write|Edit|MultiEdit|NotebookEdit|Bash)(?:\(|$)/;

/**
 * Gemini has no per-tool allow list in headless mode, only an approval mode: `yolo` approves
 * every tool call, `default` offers only the read-only tools (the shell, edit and write tools
 * are withheld when nobody can confirm them — the `tool_default` recording).
 */
export function approvalModeFor(allowedTools: readonly string[]): 'yolo' | 'default' {
  return allowedTools.some((tool) => WRITING_TOOL.test(tool.trim())) ? 'yolo' : 'default';
}

export function geminiStartupWarnings(options: { allowedTools: string[]; effort?: string }): string[] {
  const warnings: string[] = [];
  if (approvalModeFor(options.allowedTools) === 'yolo') {
    const patterns = options.allowedTools.filter((t) => /\(.+\)/.test(t));
    warnings.push(
      `Gemini CLI cannot restrict tools to ALLOWED_TOOLS: it runs with --approval-mode yolo, which approves every tool call${patterns.length > 0 ? ` (patterns such as ${patterns[0]} are not enforced)` : ''}`,
    );
  } else {
    warnings.push('Gemini CLI runs with --approval-mode default: ALLOWED_TOOLS names no write, edit or shell tool, so only read-only tools are offered');
  }
  if (options.effort) warnings.push(`Gemini CLI has no effort setting: CLAUDE_EFFORT=${options.effort} is not used`);
  return warnings;
}

/** Gemini's session ids are UUIDs; `-r` also takes `latest` or an index, which must never come from a file. */
export function isGeminiSessionId(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

export function createGeminiOutputReader(options: AgentOutputOptions): AgentOutputReader {
  return createJsonLinesReader(options, createGeminiFold(options));
}

/** stream-json events (init, message, tool_use, tool_result, error, result) onto one summary. */
export function createGeminiFold(options: { showToolArgs: boolean }): EventFold {
  let sessionId: string | null = null;
  let model: string | null = null;
  let text = '';
  let afterTool = false;
  let result: Record<string, unknown> | null = null;
  const errors: string[] = [];
  return {
    isFinal: (event) => event.type === 'result',
    push(event) {
      switch (event.type) {
        case 'init':
          sessionId = nonEmpty(event.session_id) ?? sessionId;
          model = nonEmpty(event.model) ?? model;
          return null;
        case 'message': {
          if (event.role !== 'assistant') return null;
          const content = str(event.content) ?? '';
          // Deltas of one reply are concatenated; a reply after a tool call starts a new line.
          const gap = afterTool && text !== '' && !text.endsWith('\n') ? '\n' : '';
          afterTool = false;
          text = appendBounded(text, gap + content);
          return content ? { text: content } : null;
        }
        case 'tool_use': {
          afterTool = true;
          const name = nonEmpty(event.tool_name) ?? 'unknown';
          const arg = toolArgument(event.parameters);
          return { text: options.showToolArgs && arg ? `\n⚡ [${name}] ${arg}\n` : `\n⚡ [${name}]\n`, tool: arg ? `${name}: ${arg}` : name };
        }
        case 'error': {
          const message = nonEmpty(event.message);
          if (message) errors.push(message);
          return null;
        }
        case 'result':
          result = event;
          return null;
        default:
          return null;
      }
    },
    summarize({ outputLength, garbageLines, plainTextHead }) {
      const summary: AgentResultSummary = { ...emptySummary('stream-json', outputLength), sessionId, resultText: text };
      if (!result) return { ...summary, errors, stream: streamFacts({ sessionId, model, garbageLines, plainTextHead }) };
      const stats = asRecord(result.stats) ?? {};
      const failed = result.status === 'error';
      const errorMessage = nonEmpty(asRecord(result.error)?.message);
      const inputTotal = num(stats.input_tokens) ?? 0;
      const cached = num(stats.cached) ?? 0;
      return {
        ...summary,
        hasResult: true,
        hasResultField: true,
        isError: failed,
        subtype: failed ? 'error' : 'success',
        // `input` is the uncached part of input_tokens, as Claude's input_tokens.
        usage: { input: num(stats.input) ?? Math.max(0, inputTotal - cached), output: num(stats.output_tokens) ?? 0, cacheRead: cached, cacheCreation: 0 },
        errors: errorMessage ? [...errors, errorMessage] : errors,
        numTurns: null,
        stream: streamFacts({ sessionId, model, garbageLines, plainTextHead }),
      };
    },
  };
}

function toolArgument(parameters: unknown): string {
  const p = asRecord(parameters) ?? {};
  const value = str(p.command) ?? str(p.file_path) ?? str(p.absolute_path) ?? str(p.path) ?? str(p.pattern) ?? str(p.url) ?? '';
  const first = value.split('\n', 1)[0] ?? '';
  return first.slice(0, 120);
}

/** The few stream facts the loop reads for every agent (no Claude-only events here). */
function streamFacts(f: { sessionId: string | null; model: string | null; garbageLines: number; plainTextHead: string }): AgentResultSummary['stream'] {
  return {
    ...emptyStreamSnapshot(),
    sessionId: f.sessionId,
    model: f.model,
    sawInit: f.sessionId !== null,
    garbageLines: f.garbageLines,
    plainTextHead: f.plainTextHead,
  };
}

/** How a Gemini run ended, from its exit code (HTTP status mod 256 for API errors) and stderr. */
export function classifyGeminiRun(run: AgentRunFacts, now: number): AgentFailureResult {
  if (run.timedOut) return { kind: 'timeout' };
  const s = run.summary;
  const code = run.exitCode;
  const message = firstLine(s.errors.at(-1)) || lastLine(run.stderrTail) || `Gemini CLI exited with code ${code ?? 'unknown'}`;
  if (code === 0 && !s.isError) {
    if (run.outputFormat === 'text' || s.hasResult) return { kind: 'ok' };
    return { kind: 'failed', message: s.stream?.garbageLines ? 'agent output was not valid stream-json' : 'agent output had no result' };
  }
  if (code === EXIT_AUTH_SETTINGS) return { kind: 'auth', message, fix: AUTH_SETTINGS_FIX };
  if (code === EXIT_HTTP_401 || code === EXIT_HTTP_403) return { kind: 'auth', message: cleanApiError(message), fix: API_KEY_FIX };
  if (code === EXIT_INPUT) {
    // `rbad`: "Error resuming session: Invalid session identifier …" — a fresh session is the way on.
    if (/Error resuming session|Invalid session identifier/i.test(run.stderrTail))
      return { kind: 'session_not_found', message: lastMatching(run.stderrTail, /Error resuming session/i) ?? message };
    return { kind: 'failed', message: lastLine(run.stderrTail) || message };
  }
  if (code === EXIT_HTTP_429) {
    // The CLI retries a per-minute 429 itself (printing nothing) and exits 173 at once for a
    // terminal quota (daily, `gdaily`): a limit to wait out, until the delay the API gave.
    const delayMs = retryDelayMs(run.stderrTail, message);
    return {
      kind: 'usage_limit',
      message: cleanApiError(message),
      usageLimit: { kind: 'usage_limit', source: 'text', rawText: cleanApiError(message), ...(delayMs !== undefined ? { resetAt: now + delayMs } : {}) },
    };
  }
  // 500–511 mod 256: the CLI gave up retrying a server error.
  if (code !== null && code >= 244 && code <= 255) {
    return { kind: 'transient', reason: 'server_error', message: cleanApiError(message) };
  }
  return { kind: 'failed', message: cleanApiError(message) };
}

/** The retry delay the API stated: `retryDelayMs: 5000` of the error report, or "Please retry in 12.5s". */
function retryDelayMs(stderr: string, message: string): number | undefined {
  const ms = /retryDelayMs:\s*(\d+(?:\.\d+)?)/.exec(stderr)?.[1];
  if (ms) return Math.round(Number(ms));
  const seconds = /retry (?:in|after) (\d+(?:\.\d+)?)\s*s\b/i.exec(`${message}\n${stderr}`)?.[1];
  return seconds ? Math.round(Number(seconds) * 1000) : undefined;
}

/** `[API Error: {"error":{"message":"Incorrect API key provided.",…}}]` → `Incorrect API key provided.` */
function cleanApiError(message: string): string {
  const inner = /^\[API Error: (.*?)\]?$/.exec(message)?.[1] ?? message;
  const json = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(inner)?.[1];
  return json ? json.replace(/\\"/g, '"') : inner;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** The last line of stderr that is not a stack frame (Gemini prints its error, then the trace). */
function lastLine(text: string | null | undefined): string {
  const lines = (text ?? '')
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\s+at /.test(l));
  return lines.at(-1)?.trim() ?? '';
}

function lastMatching(text: string, re: RegExp): string | null {
  return (
    text
      .split('\n')
      .filter((l) => re.test(l))
      .at(-1)
      ?.trim() ?? null
  );
}
