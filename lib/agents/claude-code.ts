// The Claude Code adapter: the exact argv for one loop (pure), and how to read what came back.
// Structured mode always reads stream-json internally (DESIGN.md §4): one parser, O(1) memory,
// the session id from system/init even when a run is cut short.

import { appendLoopContext } from '../core/loop-context.js';
import type { AgentInvocation, InvocationOptions } from './invocation.js';

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
  // --allowedTools is variadic and swallows what follows it, so it goes last. The prompt and the
  // loop context are on stdin, never in argv: every local user can read argv (ps), the argv
  // size limit breaks long prompts, and 2.1.x ignores --append-system-prompt on --resume.
  if (options.allowedTools.length > 0) args.push('--allowedTools', ...options.allowedTools);
  return { cmd, args, stdin: appendLoopContext(options.prompt, options.loopContext) };
}

/**
 * Splits CLAUDE_CODE_CMD into argv words: whitespace-separated, with '…' and "…" grouping.
 * No expansion of any kind happens: this is not a shell.
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let inWord = false;
  for (const ch of command.trim()) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** `2.1.332 (Claude Code)` → `2.1.332`. */
export function parseClaudeVersion(output: string): string | undefined {
  return /(\d+\.\d+\.\d+)/.exec(output)?.[1];
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

// Claude Code session ids are UUIDs. An id read from .ralph/.claude_session_id or from the agent's
// output is checked against this shape before it can reach argv as the value of --resume: a file
// holding `--dangerously-skip-permissions` would otherwise become a flag of the next call.
const SESSION_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether an id has the shape of a Claude Code session id (a UUID). */
export function isValidSessionId(id: string): boolean {
  return SESSION_ID_SHAPE.test(id);
}

/** The CLI's answer when --resume names a session it does not have. */
export function isSessionNotFound(stderr: string): boolean {
  // Unknown UUID, or an id that is no UUID at all (a hand-edited or damaged .claude_session_id):
  // either way a fresh session is the way on (resume_unknown / resume_badname recordings).
  return /No conversation found with session ID|--resume requires a valid session ID/i.test(stderr);
}
