// What the exit gate judges a loop by, held for the run: the exit signals and the last response
// analysis. Both are written through for the views (.exit_signals, .response_analysis) and never
// read back: the agent can write either file, and a forged one must not end or halt the run.

import { emptyExitSignals, updateExitSignals, type ExitSignalsState } from './exit-signals.js';
import type { ResponseAnalysis } from '../analysis/response-analysis.js';
import { rmSync } from 'node:fs';
import type { RalphPaths } from '../state/paths.js';
import { saveExitSignals, saveResponseAnalysis } from '../state/store.js';
import { HeldState } from '../state/held-state.js';

export interface ExitEvidence {
  signals: HeldState<ExitSignalsState>;
  /** null: no analysis in this run yet, or since a session reset (the file is removed). */
  analysis: HeldState<ResponseAnalysis | null>;
}

export function holdExitEvidence(paths: RalphPaths): ExitEvidence {
  return {
    signals: new HeldState(emptyExitSignals(), (next) => saveExitSignals(paths, { ...next })),
    analysis: new HeldState<ResponseAnalysis | null>(null, (next) => {
      if (next) saveResponseAnalysis(paths, next);
      else rmSync(paths.responseAnalysis, { force: true });
    }),
  };
}

/** When the run starts: stale signals from an earlier run must not end this one before it starts (#194). */
export function startExitEvidence(evidence: ExitEvidence): void {
  evidence.signals.flush();
  evidence.analysis.flush();
}

/** The loop's analysis, and the exit signals it adds to. */
export function recordAnalysis(evidence: ExitEvidence, analysis: ResponseAnalysis, loop: number): void {
  evidence.analysis.set(analysis);
  evidence.signals.set(updateExitSignals(evidence.signals.value, analysis, loop));
}

/** A session reset forgets both (the Bash tool's reset_session); a run that ends keeps its last analysis for the views. */
export function clearExitEvidence(evidence: ExitEvidence, keepAnalysis: boolean): void {
  evidence.signals.set(emptyExitSignals());
  if (!keepAnalysis) evidence.analysis.set(null);
}
