// The Claude Code adapter: the exact argv for one loop (pure), and how to read what came back.
// Structured mode always reads stream-json internally: one parser, O(1) memory,
// the session id from system/init even when a run is cut short.

import { classifyAgentFailure, type AgentFailureResult } from './agent-failure.js';
import { splitCommand } from '../text/command-words.js';
import { parseVersion } from '../text/version.js';
import { appendLoopContext } from './loop-context.js';
import type { AgentActivity, AgentAdapter, AgentInvocation, AgentOutputOptions, AgentOutputReader, AgentRunFacts, InvocationOptions } from './agent-adapter.js';
import { summarizeStream } from './claude-output.js';
import { isSafeSessionId } from './session-id.js';
import { createTextOutputReader } from './text-output-reader.js';
import {
  createLineSplitter,
  createStreamAccumulator,
  lastToolUse,
  renderLiveLine,
  STREAM_EVENT_LINE_PREFIX,
  USER_LINE_PREFIX,
  type StreamMessage,
} from './stream-json.js';

export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  label: 'Claude Code',
  commandKey: 'CLAUDE_CODE_CMD',
  defaultCommand: 'claude',
  installHint: 'npm install -g @anthropic-ai/claude-code',
  parseVersion,
  capabilities: {
    structuredOutput: true,
    tokenUsage: true,
    cost: true,
    permissionDenials: true,
    limitDetection: true,
    sessionContinuity: 'resume-id',
    streaming: true,
    toolRestrictions: 'exact',
  },
  buildInvocation,
  createOutputReader: createClaudeOutputReader,
  classifyFailure: classifyClaudeRun,
  isValidSessionId,
  // Its key or token, its API endpoint and model settings, its config dir and its own switches.
  sandboxEnv: [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'CLAUDE_CODE_OAUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'ANTHROPIC_MODEL',
    'ANTHROPIC_SMALL_FAST_MODEL',
    'ANTHROPIC_CUSTOM_HEADERS',
    'CLAUDE_CONFIG_DIR',
    'CLAUDE_CODE_*',
    'API_TIMEOUT_MS',
    'DISABLE_*',
    'MAX_THINKING_TOKENS',
    'IS_SANDBOX',
  ],
  startupWarnings: () => [],
};

export function buildInvocation(options: InvocationOptions): AgentInvocation {
  const [cmd, ...prefix] = splitCommand(options.command);
  if (!cmd) throw new Error('CLAUDE_CODE_CMD is empty');
  const args = [...prefix, '-p'];
  if (options.outputFormat === 'json') {
    // stream-json with -p requires --verbose (the CLI exits 1 otherwise).
    args.push('--output-format', 'stream-json', '--verbose');
  }
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  // --resume <id>, never --continue: --continue can hijack another Claude session in this dir.
  if (options.resumeSessionId) {
    // Callers validate; this is the last line before argv, so an invalid id is a bug, not input.
    if (!isValidSessionId(options.resumeSessionId)) throw new Error('resume session id is not a session id');
    args.push('--resume', options.resumeSessionId);
  }
  if (options.isolated) args.push('--strict-mcp-config');
  // The CLI refuses 0 and below (budget_bad recording); the caller gives a positive amount or none.
  if (options.maxBudgetUsd !== undefined && options.maxBudgetUsd > 0) args.push('--max-budget-usd', String(options.maxBudgetUsd));
  // --allowedTools is variadic and swallows what follows it, so it goes last. The prompt and the
  // loop context are on stdin, never in argv: every local user can read argv (ps), the argv
  // size limit breaks long prompts, and 2.1.x ignores --append-system-prompt on --resume.
  if (options.allowedTools.length > 0) args.push('--allowedTools', ...options.allowedTools);
  return { cmd, args, stdin: appendLoopContext(options.prompt, options.loopContext) };
}

/**
 * Whether an id may be the value of --resume. Claude's own ids are UUIDs, but the check is the
 * safe-token shape (session-id.ts), not the UUID one: what matters is that no flag passes, and an
 * id the CLI does not know is answered with "No conversation found" and a fresh session.
 */
export function isValidSessionId(id: string): boolean {
  return isSafeSessionId(id);
}

/** The CLI's answer when --resume names a session it does not have. */
export function isSessionNotFound(stderr: string): boolean {
  // Unknown UUID, or an id that is no UUID at all (a hand-edited or damaged .claude_session_id):
  // either way a fresh session is the way on (resume_unknown / resume_badname recordings).
  return /No conversation found with session ID|--resume requires a valid session ID/i.test(stderr);
}

/**
 * stream-json goes line by line through one accumulator (O(1) memory, the session id from init
 * even when a run is cut short, tool use for the display); text mode keeps a bounded tail.
 */
export function createClaudeOutputReader(options: AgentOutputOptions): AgentOutputReader {
  if (options.outputFormat === 'text') return createTextOutputReader();
  // Tool results (`user` lines: whole files, command output) and partial-message events are the
  // bulk of a stream and carry nothing the loop reads; skip them before decoding.
  const splitter = createLineSplitter({ skipPrefixes: [USER_LINE_PREFIX, STREAM_EVENT_LINE_PREFIX] });
  const accumulator = createStreamAccumulator();
  let outputLength = 0;
  const activityOf = (message: StreamMessage): AgentActivity => ({
    text: renderLiveLine(message, { showToolArgs: options.showToolArgs }),
    tool: lastToolUse(message),
  });
  const read = (lines: string[]): AgentActivity[] => {
    const activity: AgentActivity[] = [];
    for (const line of lines) {
      const message = accumulator.push(line);
      if (message) activity.push(activityOf(message));
    }
    return activity;
  };
  return {
    push(chunk) {
      outputLength += chunk.length;
      return read(splitter.push(chunk));
    },
    finish() {
      const activity = read(splitter.end());
      return { summary: summarizeStream(accumulator.snapshot(), outputLength), activity };
    },
  };
}

/** The Claude CLI's failure texts and result fields (is_error, subtype, api_error_status) onto ralph's failure kinds. */
export function classifyClaudeRun(run: AgentRunFacts, now: number): AgentFailureResult {
  const s = run.summary;
  const result = classifyAgentFailure(
    {
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      isError: s.isError,
      resultText: s.hasResult ? s.resultText : null,
      plainText: s.hasResult ? null : s.stream?.plainTextHead || null,
      subtype: s.subtype,
      errors: s.errors,
      terminalReason: s.terminalReason,
      apiErrorStatus: s.apiErrorStatus,
      apiErrorType: s.apiErrorType,
      apiError: s.apiError,
      assistantError: s.stream?.assistantError ?? null,
      rateLimitRejected:
        s.stream?.rateLimit?.status === 'rejected' ? { resetsAt: s.stream.rateLimit.resetsAt, rateLimitType: s.stream.rateLimit.rateLimitType } : null,
      stderrTail: run.stderrTail,
    },
    { now },
  );
  // A run cut short (no result) that exited 0 is still a failed run (SIGINT exits 0, no result).
  if (result.kind === 'ok' && run.outputFormat !== 'text' && !s.hasResult) {
    return { kind: 'failed', message: s.stream?.garbageLines ? 'agent output was not valid stream-json' : 'agent output had no result' };
  }
  if (result.kind === 'failed' && isSessionNotFound(run.stderrTail)) return { kind: 'session_not_found', message: 'session not found' };
  return result;
}
