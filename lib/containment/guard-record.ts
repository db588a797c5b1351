// What the guards undid or refused in one run, held for the run: the alerts the monitor shows
// (status.json `run_alerts`) and how many agent calls changed a guarded file (the second halts
// the run). In memory only: the agent can write every file under .ralph/.

export class GuardRecord {
  readonly #alerts: string[] = [];
  #violatingCalls = 0;

  /** What the guards undid or refused in this run, oldest first. */
  get alerts(): readonly string[] {
    return this.#alerts;
  }

  /** Agent calls in this run that changed a guarded file. */
  get violatingCalls(): number {
    return this.#violatingCalls;
  }

  alert(text: string): void {
    this.#alerts.push(text);
  }

  /** One more agent call changed a guarded file; the calls that did so in this run. */
  countViolatingCall(): number {
    return ++this.#violatingCalls;
  }
}
