// A run record to start tests from, and a clock-like time source.

import { createRunRecord } from '../../../lib/run-record/run-record.js';
import type { RunRecord } from '../../../lib/run-record/record-schema.js';

export const T0 = Date.parse('2026-11-30T03:10:00Z');

export function newRecord(runId = '20261130T031000Z-abc123'): RunRecord {
  return createRunRecord({
    now: T0,
    runId,
    goal: {
      type: 'checklist+tests',
      summary: 'Complete 2 open fix_plan.md items: a; b',
      source: 'fix_plan.md',
      open_items_at_start: 2,
      test_command: 'npm test',
    },
  });
}
