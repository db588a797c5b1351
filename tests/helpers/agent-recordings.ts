// Replaying a recorded run of a real agent CLI (tests/fixtures/agent-clis/<cli>/LABEL.*) through
// an adapter's reader and classifier, as the loop would see it: stdout in small chunks (so events
// split across reads), the stderr tail, the exit code.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentActivity, AgentAdapter } from '../../lib/agents/agent-adapter.js';
import type { AgentResultSummary } from '../../lib/agents/claude-output.js';
import type { AgentFailureResult } from '../../lib/agents/agent-failure.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const AGENT_CLIS_DIR = resolve(HERE, '..', 'fixtures', 'agent-clis');

export interface AgentRecording {
  stdout: string;
  stderr: string;
  rc: number;
}

export function readAgentRecording(cli: string, label: string): AgentRecording {
  const base = join(AGENT_CLIS_DIR, cli, label);
  return {
    stdout: readFileSync(`${base}.stdout`, 'utf8'),
    stderr: readFileSync(`${base}.stderr`, 'utf8'),
    rc: Number(readFileSync(`${base}.rc`, 'utf8').trim()),
  };
}

/** Every label recorded for a CLI. */
export function agentRecordingLabels(cli: string): string[] {
  return readdirSync(join(AGENT_CLIS_DIR, cli))
    .filter((f) => f.endsWith('.rc'))
    .map((f) => f.slice(0, -3))
    .sort();
}

export interface ReplayedRun {
  summary: AgentResultSummary;
  activity: AgentActivity[];
  failure: AgentFailureResult;
}

export function replayThroughAdapter(
  adapter: AgentAdapter,
  recording: AgentRecording,
  options: { timedOut?: boolean; now?: number; chunkBytes?: number; showToolArgs?: boolean } = {},
): ReplayedRun {
  const reader = adapter.createOutputReader({ outputFormat: 'json', showToolArgs: options.showToolArgs ?? true });
  const bytes = Buffer.from(recording.stdout, 'utf8');
  const size = options.chunkBytes ?? 37;
  const activity: AgentActivity[] = [];
  for (let i = 0; i < bytes.length; i += size) activity.push(...reader.push(bytes.subarray(i, i + size)));
  const { summary, activity: last } = reader.finish();
  activity.push(...last);
  const failure = adapter.classifyFailure(
    { exitCode: recording.rc, timedOut: options.timedOut ?? false, summary, stderrTail: recording.stderr.slice(-8192), outputFormat: 'json' },
    options.now ?? Date.UTC(2026, 11, 1, 12, 0, 0),
  );
  return { summary, activity, failure };
}
