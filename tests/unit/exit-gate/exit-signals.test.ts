import { describe, expect, it } from 'vitest';
import { emptyExitSignals, updateExitSignals } from '../../../lib/exit-gate/exit-signals.js';
import type { ResponseAnalysis, ResponseAnalysisFields } from '../../../lib/analysis/response-analysis.js';

function analysis(fields: Partial<ResponseAnalysisFields>): ResponseAnalysis {
  return {
    loop_number: 1,
    timestamp: '',
    output_file: '',
    output_format: 'json',
    analysis: {
      has_completion_signal: false,
      is_test_only: false,
      is_stuck: false,
      has_progress: false,
      files_modified: 0,
      confidence_score: 0,
      exit_signal: false,
      work_summary: '',
      output_length: 0,
      has_permission_denials: false,
      permission_denial_count: 0,
      denied_commands: [],
      has_compound_command_limitation: false,
      compound_command_count: 0,
      asking_questions: false,
      question_count: 0,
      is_error: false,
      error_count: 0,
      error_signature: '',
      ralph_status: null,
      tests_status: null,
      work_type: null,
      tasks_completed: null,
      files_modified_claimed: null,
      claim_disagreement: null,
      ...fields,
    },
  };
}

describe('updateExitSignals (.exit_signals as the Bash tool keeps it)', () => {
  it('starts empty', () => {
    expect(emptyExitSignals()).toEqual({ test_only_loops: [], done_signals: [], completion_indicators: [] });
  });

  it('appends the loop to each list its analysis qualifies for', () => {
    const next = updateExitSignals(emptyExitSignals(), analysis({ is_test_only: true, has_completion_signal: true, exit_signal: true }), 4);
    expect(next).toEqual({ test_only_loops: [4], done_signals: [4], completion_indicators: [4] });
  });

  it('only an exit signal is a completion indicator (#132)', () => {
    const next = updateExitSignals(emptyExitSignals(), analysis({ has_completion_signal: true, confidence_score: 90 }), 1);
    expect(next.completion_indicators).toEqual([]);
    expect(next.done_signals).toEqual([1]);
  });

  it('clears test-only loops on real progress, and keeps them otherwise', () => {
    const start = { test_only_loops: [1, 2], done_signals: [2], completion_indicators: [] };
    expect(updateExitSignals(start, analysis({ has_progress: true }), 3).test_only_loops).toEqual([]);
    expect(updateExitSignals(start, analysis({}), 3).test_only_loops).toEqual([1, 2]);
    expect(updateExitSignals(start, analysis({ is_test_only: true, has_progress: true }), 3).test_only_loops).toEqual([1, 2, 3]);
    expect(updateExitSignals(start, analysis({ has_progress: true }), 3).done_signals).toEqual([2]);
  });

  it('keeps the last five of each list and does not mutate its input', () => {
    let signals = emptyExitSignals();
    const frozen = signals;
    for (let loop = 1; loop <= 8; loop++) {
      signals = updateExitSignals(signals, analysis({ is_test_only: true, has_completion_signal: true, exit_signal: true }), loop);
    }
    expect(signals).toEqual({
      test_only_loops: [4, 5, 6, 7, 8],
      done_signals: [4, 5, 6, 7, 8],
      completion_indicators: [4, 5, 6, 7, 8],
    });
    expect(frozen).toEqual(emptyExitSignals());
  });
});
