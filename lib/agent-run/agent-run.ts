// One agent run: the process (run-agent.ts) plus its adapter's reader, which turns stdout into
// live activity as it arrives and into the normalized result at the end.

import type { AgentActivity, AgentAdapter, AgentInvocation, AgentRunKind } from '../agents/agent-adapter.js';
import type { AgentResultSummary } from '../agents/claude-output.js';
import { startAgentProcess, type RawAgentRun, type RunAgentOptions } from './agent-process.js';

export interface AgentRunOptions extends Omit<RunAgentOptions, 'onStdout' | 'invocation' | 'jsonOutput'> {
  adapter: AgentAdapter;
  invocation: AgentInvocation;
  outputFormat: 'json' | 'text';
  showToolArgs: boolean;
  /** What the agent is doing, as it happens (live view, tool tracking). */
  onActivity?: (activity: AgentActivity) => void;
}

export interface AgentRunResult extends RawAgentRun {
  kind: AgentRunKind;
  summary: AgentResultSummary;
}

export interface AgentRunHandle {
  result: Promise<AgentRunResult>;
  interrupt(): void;
}

export function startAgentRun(options: AgentRunOptions): AgentRunHandle {
  const reader = options.adapter.createOutputReader({ outputFormat: options.outputFormat, showToolArgs: options.showToolArgs });
  const report = (activity: AgentActivity[]) => {
    for (const a of activity) options.onActivity?.(a);
  };
  const process = startAgentProcess({
    ...options,
    env: { ...options.env, ...options.invocation.env },
    jsonOutput: options.outputFormat === 'json',
    onStdout: (chunk) => report(reader.push(chunk)),
  });
  const result = process.done.then((raw): AgentRunResult => {
    const { summary, activity } = reader.finish();
    report(activity);
    return { ...raw, summary };
  });
  return { result, interrupt: () => process.interrupt() };
}
