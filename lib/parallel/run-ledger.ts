// What a `ralph --parallel` run must trust across restarts, kept in the project's ledger
// (outside the project, where the agent cannot write) rather than in .ralph/parallel.json:
// each unit's cost and the run time so far. A resumed run takes them up from here; a run the
// ledger does not know (another id, or no ledger) starts from zero.

import { readLedger, updateLedger, type Ledger } from '../state/ledger.js';

export type ParallelLedgerRecord = NonNullable<Ledger['parallel']>;

/** The ledger's record of run `runId`, or undefined when it holds none (or another run's). */
export function readParallelLedger(ledgerPath: string, runId: string, warn: (message: string) => void): ParallelLedgerRecord | undefined {
  const record = readLedger(ledgerPath, warn)?.parallel ?? undefined;
  return record?.run_id === runId ? record : undefined;
}

export function saveParallelLedger(ledgerPath: string, projectDir: string, record: ParallelLedgerRecord): void {
  updateLedger(ledgerPath, projectDir, (ledger) => ({ ...ledger, parallel: record }));
}
