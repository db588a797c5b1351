// `.exit_signals`: the recent loops that looked test-only, signalled completion or set
// EXIT_SIGNAL, as the Bash tool keeps them. The exit gate counts them. Pure.

import type { ResponseAnalysis } from '../analysis/response-analysis.js';

export interface ExitSignalsState {
  test_only_loops: number[];
  done_signals: number[];
  completion_indicators: number[];
}

/** Each list keeps the most recent loops only. */
export const EXIT_SIGNAL_WINDOW = 5;

export function emptyExitSignals(): ExitSignalsState {
  return { test_only_loops: [], done_signals: [], completion_indicators: [] };
}

export function updateExitSignals(signals: ExitSignalsState, analysis: ResponseAnalysis, loop: number): ExitSignalsState {
  const a = analysis.analysis;
  let testOnly = signals.test_only_loops;
  // A loop that made real progress ends a run of test-only loops.
  if (a.is_test_only) testOnly = [...testOnly, loop];
  else if (a.has_progress) testOnly = [];
  const done = a.has_completion_signal ? [...signals.done_signals, loop] : signals.done_signals;
  // Only an explicit (or resolved) exit signal is a completion indicator (#132).
  const indicators = a.exit_signal ? [...signals.completion_indicators, loop] : signals.completion_indicators;
  return {
    test_only_loops: lastWindow(testOnly),
    done_signals: lastWindow(done),
    completion_indicators: lastWindow(indicators),
  };
}

function lastWindow(loops: number[]): number[] {
  return loops.slice(-EXIT_SIGNAL_WINDOW);
}
