// `ralph-stats --full` (and the table) per agent: loops, successful loops, tokens and cost of
// each agent that ran a loop (the metrics line's `agent`; lines written before agents beyond
// Claude have none and are Claude's). A line's cost_usd is its run's running total, so a loop's
// cost is the step from the line before in the same run (a run starts where `loop` does not go
// up), as the rest of the summary counts it. One pass, line by line, bounded memory.

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface AgentTotals {
  loops: number;
  successful: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number;
}

export async function readAgentBreakdown(metricsPath: string, sinceMs?: number): Promise<Record<string, AgentTotals>> {
  const totals: Record<string, AgentTotals> = {};
  const lines = createInterface({ input: createReadStream(metricsPath, { encoding: 'utf8' }), crlfDelay: Infinity });
  let before: Record<string, unknown> | null = null;
  for await (const line of lines) {
    const m = parseLine(line);
    if (!m) continue;
    const cost = loopCost(m, before);
    before = m;
    if (sinceMs !== undefined && !(Date.parse(String(m.timestamp)) >= sinceMs)) continue;
    const agent = typeof m.agent === 'string' && /^[a-z][a-z0-9-]{0,30}$/.test(m.agent) ? m.agent : 'claude';
    const t = (totals[agent] ??= { loops: 0, successful: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: 0 });
    t.loops++;
    if (m.success === true) t.successful++;
    t.input_tokens += count(m.input_tokens);
    t.output_tokens += count(m.output_tokens);
    t.cache_read_tokens += count(m.cache_read_tokens);
    t.cost_usd += cost;
  }
  return totals;
}

function loopCost(m: Record<string, unknown>, before: Record<string, unknown> | null): number {
  const cost = count(m.cost_usd);
  if (!before) return cost;
  const sameRun = typeof m.loop === 'number' && typeof before.loop === 'number' && m.loop > before.loop;
  const previous = typeof before.cost_usd === 'number' ? before.cost_usd : undefined;
  return sameRun && previous !== undefined && cost >= previous ? cost - previous : cost;
}

/** `Agents: claude 2 loops (2 ok), codex 1 loop (1 ok)` for the table. */
export function describeAgentBreakdown(totals: Record<string, AgentTotals>): string {
  const parts = Object.entries(totals).map(([name, t]) => `${name} ${t.loops} loop${t.loops === 1 ? '' : 's'} (${t.successful} ok, ${t.input_tokens + t.output_tokens} tokens)`);
  return parts.length > 0 ? `Agents: ${parts.join(', ')}` : '';
}

function parseLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
