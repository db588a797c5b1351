// What earlier attempts tried, for the context of a resumed run's next loop: one line per
// attempt (newest kept when the budget is tight), the last verification and the gap. Pure.

import { describeGap } from './gap.js';
import type { Attempt, RunRecord } from './record-schema.js';

const ACTION_CHARS = 160;

export function summarizeAttemptsForContext(record: RunRecord, maxChars: number): string {
  if (record.attempts.length === 0 || maxChars <= 0) return '';
  const head = `Earlier attempts in this run (${record.run_id}), oldest first:`;
  const footer: string[] = [];
  const verification = record.last_verification;
  if (verification && verification.status !== 'passed') {
    footer.push(`Last verification (loop ${verification.loop}): ${verification.status}, ${verification.failed} failing.`);
  }
  if (record.gap) footer.push(`Distance to goal: ${describeGap(record.gap)}.`);
  const fixed = head.length + footer.reduce((n, l) => n + l.length + 1, 0) + 1;

  const lines: string[] = [];
  let size = fixed;
  let shown = 0;
  for (let i = record.attempts.length - 1; i >= 0; i--) {
    const line = attemptLine(record.attempts[i]!);
    const reserve = i > 0 ? 40 : 0; // room for "… N earlier attempts"
    if (size + line.length + 1 + reserve > maxChars) break;
    lines.unshift(line);
    size += line.length + 1;
    shown++;
  }
  const hidden = (record.attempts_dropped ?? 0) + record.attempts.length - shown;
  if (hidden > 0) lines.unshift(`- … ${hidden} earlier attempt${hidden === 1 ? '' : 's'} not shown`);
  const text = [head, ...lines, ...footer].join('\n');
  return text.length <= maxChars ? text : text.slice(0, Math.max(0, maxChars - 1)) + '…';
}

function attemptLine(attempt: Attempt): string {
  if (attempt.state !== 'finished') return `- Loop ${attempt.loop}: cut off (ralph stopped during this loop); it runs again`;
  const parts: string[] = [attempt.outcome ?? 'unverified'];
  if (attempt.agent_result && attempt.agent_result !== 'ok') parts.push(`agent ${attempt.agent_result}`);
  parts.push(`${attempt.files_changed_count} file${attempt.files_changed_count === 1 ? '' : 's'} changed`);
  const action = attempt.action.length > ACTION_CHARS ? `${attempt.action.slice(0, ACTION_CHARS - 1)}…` : attempt.action;
  return `- Loop ${attempt.loop}: ${parts.join(', ')} — ${action}`;
}
