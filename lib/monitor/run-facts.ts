// Facts that belong to one run (its session record, its GitHub issue) are shown as current only
// while that run is the current one: the run ralph's ledger names in .ralph/.run_state. With no
// current run known (a project only the Bash tool ran), nothing can be told apart. Pure.

/** `ofRun` (a record's or a lifecycle's run id) is the current run, or no current run is known. */
export function isOfCurrentRun(ofRun: string | null | undefined, currentRunId: string | undefined): boolean {
  return currentRunId === undefined || ofRun === currentRunId;
}
