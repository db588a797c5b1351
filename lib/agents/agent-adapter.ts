// The agent adapter contract: everything the loop needs from one headless coding CLI (ADR 0002
// of the upstream tool: command, capabilities, parser, failure classification). One file per
// agent implements it (claude-code.ts, …) and registry.ts finds it by name. The loop, --dry-run
// and ralph-import build their calls through it; nothing outside lib/agents knows an agent's flags.

import type { AGENT_NAMES, ConfigKey } from '../config/schema.js';
import type { AgentFailureResult } from './agent-failure.js';
import type { AgentResultSummary } from './claude-output.js';

export type AgentName = (typeof AGENT_NAMES)[number];

/** What an agent can tell ralph or be told. A capability it lacks degrades with one warning. */
export interface AgentCapabilities {
  /** Prints machine-readable events (else only text, read for RALPH_STATUS). */
  structuredOutput: boolean;
  tokenUsage: boolean;
  /** Reports its cost in USD. */
  cost: boolean;
  /** Reports tool calls it refused for want of permission. */
  permissionDenials: boolean;
  /** Its usage-limit and quota failures can be told apart from other failures. */
  limitDetection: boolean;
  /** How a later call continues the same conversation. */
  sessionContinuity: 'resume-id' | 'none';
  /** Events arrive while it works (live view, tool in use). */
  streaming: boolean;
  /** How far ALLOWED_TOOLS can be honoured. */
  toolRestrictions: 'exact' | 'approximate' | 'none';
  /** Its token usage is the session's running total (Codex over `resume`): the loop takes differences. */
  cumulativeUsage?: boolean;
}

export interface InvocationOptions {
  /** The configured command (CLAUDE_CODE_CMD, …), possibly several words (`npx @anthropic-ai/claude-code`). */
  command: string;
  prompt: string;
  /** `text` asks for the agent's plain output; `json` for its structured events. */
  outputFormat: 'json' | 'text';
  model?: string;
  effort?: string;
  allowedTools: string[];
  resumeSessionId?: string;
  /** Ralph's per-loop context, sent after the prompt (already redacted). */
  loopContext?: string;
  /** A one-shot helper call (ralph-import): load none of the user's MCP servers or extensions. */
  isolated?: boolean;
  /** A spending cap for this call in USD (Claude's `--max-budget-usd`): given only to a CLI that accepts it. */
  maxBudgetUsd?: number;
  /** The environment the agent inherits, for an adapter that merges into one of its variables (OpenCode's config). */
  inheritedEnv?: Readonly<Record<string, string | undefined>>;
}

export interface AgentInvocation {
  cmd: string;
  args: string[];
  /** Written to the agent's stdin, then stdin is closed. */
  stdin: string;
  /** Variables added to ralph's environment for this agent (never secrets ralph made up). */
  env?: Record<string, string>;
  /**
   * In a sandbox: the names (or `PREFIX*`) of ralph's variables this process gets beyond the
   * sandbox's base list — the running agent's credentials and settings (AgentAdapter.sandboxEnv).
   */
  passEnv?: readonly string[];
  /** Files given to the process as file descriptors 3, 4, … (set by a sandbox: its seccomp filter). */
  inheritFiles?: readonly string[];
}

/** What the agent is doing, as far as the live view and the monitor show it. */
export interface AgentActivity {
  /** Text for the live view (already rendered, may span lines). */
  text?: string;
  /** The tool now in use, as `Name: argument`. */
  tool?: string;
}

/** Reads one run's stdout as it arrives and ends with the normalized result. */
export interface AgentOutputReader {
  push(chunk: Buffer): AgentActivity[];
  finish(): { summary: AgentResultSummary; activity: AgentActivity[] };
}

export interface AgentOutputOptions {
  outputFormat: 'json' | 'text';
  showToolArgs: boolean;
}

/** How a run ended, as the adapter's classification needs it. */
export interface AgentRunFacts {
  exitCode: number | null;
  /** Killed by ralph's own wall-clock timeout. */
  timedOut: boolean;
  summary: AgentResultSummary;
  /** The last part of stderr. */
  stderrTail: string;
  outputFormat: 'json' | 'text';
}

/** Where an agent's login can be seen without calling it (for `ralph --doctor`). */
export interface AgentCredentials {
  /** Any of these set is taken as a login. */
  envVars: string[];
  /** Files in which the CLI keeps a login it made itself, from the environment and the home directory. */
  files(env: NodeJS.ProcessEnv, home: string): string[];
  /** Whether a login nowhere to be seen fails the check, or only warns (the CLI may have it elsewhere). */
  missing: 'fail' | 'warn';
  fix: string;
}

export interface AgentAdapter {
  readonly name: AgentName;
  /** For people: `Claude Code`. */
  readonly label: string;
  /** The config key holding its command, and that command's default (also looked for in node_modules/.bin). */
  readonly commandKey: ConfigKey;
  readonly defaultCommand: string;
  /** How a user installs it, e.g. `npm install -g @openai/codex`. */
  readonly installHint: string;
  /** Its version from what `<command> --version` printed. */
  parseVersion(output: string): string | undefined;
  readonly capabilities: AgentCapabilities;
  /** The exact argv, stdin and extra environment for one call (pure). */
  buildInvocation(options: InvocationOptions): AgentInvocation;
  createOutputReader(options: AgentOutputOptions): AgentOutputReader;
  /** ok, or which kind of failure (session_not_found when a resumed id was rejected). */
  classifyFailure(run: AgentRunFacts, now: number): AgentFailureResult;
  /** Whether an id (read from a file the agent can write, or from its output) may be resumed. */
  isValidSessionId(id: string): boolean;
  /**
   * The variables of ralph's environment it needs inside a sandbox: its credentials and its own
   * settings, names or `PREFIX*` (no other agent's key, no GH_TOKEN or cloud credentials).
   */
  readonly sandboxEnv: readonly string[];
  /** Where its login lives; absent: the doctor has its own check (Claude) or none. */
  readonly credentials?: AgentCredentials;
  /** What of the configuration this agent cannot honour exactly: said once at start. */
  startupWarnings(options: { allowedTools: string[]; effort?: string }): string[];
}

/** How an agent process ended, from ralph's side. */
export type AgentRunKind = 'completed' | 'failed' | 'timed-out' | 'interrupted';

/** "Codex CLI", "Gemini CLI" (never "Gemini CLI CLI"): how messages name an agent's program. */
export function formatCliName(label: string): string {
  return /\bCLI$/.test(label) ? label : `${label} CLI`;
}
