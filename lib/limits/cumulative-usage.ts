// One call's tokens from an agent that reports its session's running total (Codex: the usage
// of `turn.completed` grows over `resume`, 1200 → 2400 → 3600 input tokens). The call's own
// usage is the difference from the total after the previous call of the same session; a total
// that went down in any count is a session that started over, so it is the call's own. Pure.

import type { TokenUsage } from './spend.js';

const FIELDS = ['input', 'output', 'cacheRead', 'cacheCreation'] as const;

export function usageSinceLastCall(total: TokenUsage, previousTotal: TokenUsage | undefined): TokenUsage {
  if (!previousTotal) return total;
  if (FIELDS.some((f) => total[f] < previousTotal[f])) return total;
  return {
    input: total.input - previousTotal.input,
    output: total.output - previousTotal.output,
    cacheRead: total.cacheRead - previousTotal.cacheRead,
    cacheCreation: total.cacheCreation - previousTotal.cacheCreation,
  };
}
