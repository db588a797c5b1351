// The agent adapter contract: what a loop needs from any headless coding CLI. The Claude Code
// adapter (claude-code.ts) is the only implementation today; another CLI is one more file.

export interface AgentInvocation {
  cmd: string;
  args: string[];
  /** Written to the agent's stdin, then stdin is closed. */
  stdin: string;
}

export interface InvocationOptions {
  /** CLAUDE_CODE_CMD, possibly several words (`npx @anthropic-ai/claude-code`). */
  command: string;
  prompt: string;
  outputFormat: 'json' | 'text';
  model?: string;
  effort?: string;
  allowedTools: string[];
  resumeSessionId?: string;
  /** Ralph's per-loop context, sent on stdin after the prompt (already redacted). */
  loopContext?: string;
}

export type AgentRunKind = 'completed' | 'failed' | 'timed-out' | 'interrupted';

export interface AgentRunResult {
  kind: AgentRunKind;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** Session id from the result, or from system/init when the run was cut short. */
  sessionId?: string;
  /** Last part of stderr (≤ 8 KiB), for error classification. */
  stderrTail: string;
  /** Raw stdout for text mode (bounded); stream mode keeps only the parsed summary. */
  textOutput?: string;
  outputLogPath: string;
  stderrLogPath: string;
}

export interface AgentRunHandle<TSummary> {
  result: Promise<AgentRunResult & { summary: TSummary }>;
  /** Stop the agent: SIGTERM to its process group, SIGKILL after the grace period. */
  interrupt(): void;
}
