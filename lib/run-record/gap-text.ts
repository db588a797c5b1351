// The gap as one line for the monitor and `ralph --status`: `gap 3 (2 open items + 1 failing
// test) ↓ improving`. Type imports only, so a reader that must start fast (--status) can use it
// without loading the record's zod schema. Pure.

import type { Gap, GapTrend } from './record-schema.js';

const TREND_ARROWS: Record<GapTrend, string> = { improving: '↓', stagnant: '→', worsening: '↑' };

/** `gap 3 (2 open items + 1 failing test) ↓ improving` for the monitor and --status. */
export function describeGap(gap: Gap | null): string {
  if (!gap) return 'gap: not measured yet';
  const last = gap.history[gap.history.length - 1];
  const parts: string[] = [];
  if (last?.open_items !== null && last?.open_items !== undefined) parts.push(plural(last.open_items, 'open item'));
  if (last?.failing_tests !== null && last?.failing_tests !== undefined) parts.push(plural(last.failing_tests, 'failing test'));
  const detail = parts.length > 0 ? ` (${parts.join(' + ')})` : '';
  return `gap ${gap.current}${detail} ${TREND_ARROWS[gap.trend]} ${gap.trend}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
