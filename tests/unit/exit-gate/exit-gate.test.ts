import { describe, expect, it } from 'vitest';
import { extractAgentResult } from '../../../lib/agents/claude-output.js';
import { evaluateExitGate, nextConflictCount, type ExitGateConfig, type ExitGateInput, type ExitGateResult } from '../../../lib/exit-gate/exit-gate.js';
import { emptyExitSignals, updateExitSignals, type ExitSignalsState } from '../../../lib/exit-gate/exit-signals.js';
import { parseFixPlan, type PlanView } from '../../../lib/plan/fix-plan.js';
import { defaultConfig } from '../../../lib/config/schema.js';
import { exitGateConfig } from '../../../lib/exit-gate/exit-step.js';
import { buildLoopContext } from '../../../lib/agents/loop-context.js';
import { analyzeResponse, type ResponseAnalysis } from '../../../lib/analysis/response-analysis.js';

const OPEN_PLAN = parseFixPlan('- [x] setup\n- [ ] Write the exit gate\n- [ ] Document exit codes\n');
const DONE_PLAN = parseFixPlan('- [x] setup\n- [x] Write the exit gate\n');

function jsonOutput(result: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, session_id: 's', ...extra });
}

const CLAIM = jsonOutput('All done.\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---');
const WORKING = jsonOutput('Progress.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---');
const TESTING = jsonOutput('Ran the suite.\n---RALPH_STATUS---\nWORK_TYPE: TESTING\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---');

function analysisOf(output: string, loop = 1, options: { allowedTools?: string[]; git?: number } = {}): ResponseAnalysis {
  return analyzeResponse({
    agent: extractAgentResult(output),
    loopNumber: loop,
    filesChanged: options.git ?? 0,
    newContent: (options.git ?? 0) > 0,
    allowedTools: options.allowedTools ?? [],
    outputFile: 'out.log',
    now: new Date('2026-01-01T00:00:00Z'),
  });
}

function gate(input: Partial<ExitGateInput>, config: Partial<ExitGateConfig> = {}): ExitGateResult {
  return evaluateExitGate({
    exitSignals: emptyExitSignals(),
    analysis: null,
    plan: null,
    conflictCount: 0,
    ...input,
    config: { ...exitGateConfig(defaultConfig()), ...config },
  });
}

/** Run loops through the real analyzer, exit signals, gate and conflict counter. */
function simulate(outputs: string[], plan: PlanView | null, config: Partial<ExitGateConfig> = {}) {
  let signals: ExitSignalsState = emptyExitSignals();
  let conflictCount = 0;
  const results: ExitGateResult[] = [];
  const analyses: ResponseAnalysis[] = [];
  outputs.forEach((output, i) => {
    const analysis = analysisOf(output, i + 1, { git: 1 });
    signals = updateExitSignals(signals, analysis, i + 1);
    const result = gate({ exitSignals: signals, analysis, plan, conflictCount }, config);
    conflictCount = nextConflictCount(conflictCount, result, analysis.analysis.has_progress);
    results.push(result);
    analyses.push(analysis);
  });
  return { results, analyses, signals, conflictCount };
}

describe('evaluateExitGate: every exit reason is reachable', () => {
  it('permission_denied halts, before anything else', () => {
    const denied = analysisOf(jsonOutput('x', { permission_denials: [{ tool_name: 'Edit', tool_input: {} }] }));
    const result = gate({
      analysis: denied,
      exitSignals: { test_only_loops: [1, 2, 3], done_signals: [1, 2], completion_indicators: [1, 2] },
      plan: DONE_PLAN,
    });
    expect(result).toEqual({ kind: 'exit', reason: 'permission_denied', outcome: 'halted' });
  });

  it('a compound-command limitation is a notice, not a halt (#243)', () => {
    const denial = { tool_name: 'Bash', tool_input: { command: 'npm test 2>&1 | tail -5' } };
    const analysis = analysisOf(jsonOutput('x', { permission_denials: [denial] }), 1, { allowedTools: ['Bash(npm *)'] });
    expect(gate({ analysis })).toEqual({
      kind: 'continue',
      compoundCommands: { count: 1, deniedCommands: ['Bash(npm test 2>&1 | tail -5)'] },
    });
    expect(gate({ analysis, plan: DONE_PLAN })).toMatchObject({ kind: 'exit', reason: 'plan_complete', compoundCommands: { count: 1 } });
  });

  it('test_saturation after three test-only loops (WORK_TYPE: TESTING counts), only with no open plan item', () => {
    expect(simulate([TESTING, TESTING, TESTING], OPEN_PLAN).results.map((r) => r.kind)).toEqual(['continue', 'continue', 'continue']);
    const { results } = simulate([TESTING, TESTING, TESTING], null);
    expect(results.map((r) => r.kind)).toEqual(['continue', 'continue', 'exit']);
    expect(results[2]).toEqual({ kind: 'exit', reason: 'test_saturation', outcome: 'completed' });
    expect(gate({ exitSignals: { ...emptyExitSignals(), test_only_loops: [1, 2] } }, { maxConsecutiveTestLoops: 2 })).toMatchObject({
      reason: 'test_saturation',
    });
  });

  it('project_complete: two completion indicators and the latest loop says EXIT_SIGNAL: true', () => {
    const { results } = simulate([CLAIM, CLAIM], DONE_PLAN);
    // Bash checks completion_signals first, which hid project_complete; ours names the stronger evidence.
    expect(results[1]).toEqual({ kind: 'exit', reason: 'project_complete', outcome: 'completed' });
  });

  it('completion_signals: two done signals without an exit signal (text-mode "no work" heuristics)', () => {
    const noWork = 'Nothing to do, everything is up to date.';
    const { results, analyses } = simulate([noWork, noWork], null);
    expect(analyses.map((a) => [a.analysis.has_completion_signal, a.analysis.exit_signal])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(results[0]?.kind).toBe('continue');
    expect(results[1]).toEqual({ kind: 'exit', reason: 'completion_signals', outcome: 'completed' });
  });

  it('safety_circuit_breaker: five completion indicators even when the latest loop makes no claim', () => {
    const signals = { test_only_loops: [], done_signals: [], completion_indicators: [1, 2, 3, 4, 5] };
    expect(gate({ exitSignals: signals, analysis: analysisOf(WORKING, 6) })).toEqual({
      kind: 'exit',
      reason: 'safety_circuit_breaker',
      outcome: 'completed',
    });
    expect(gate({ exitSignals: signals, analysis: null })).toMatchObject({ reason: 'safety_circuit_breaker' });
  });

  it('plan_complete before the first call: no signals, no analysis, the plan is already done', () => {
    expect(gate({ plan: DONE_PLAN })).toEqual({ kind: 'exit', reason: 'plan_complete', outcome: 'completed' });
    expect(gate({ plan: DONE_PLAN, exitSignals: null })).toMatchObject({ reason: 'plan_complete' });
  });

  it('plan_complete honours optional sections and ignores non-checkbox brackets', () => {
    const plan = parseFixPlan(
      [
        '- [x] core',
        '- [NOTE] not a task',
        '[2026-01-29] shipped v1',
        '-[ ] not a checkbox',
        '```',
        '- [ ] an example in a fence',
        '```',
        '## Nice to have',
        '- [ ] colours',
      ].join('\n'),
      ['Nice to have'],
    );
    expect(gate({ plan })).toMatchObject({ kind: 'exit', reason: 'plan_complete' });
    expect(gate({ plan: parseFixPlan('- [x] core\n## Nice to have\n- [ ] colours') })).toEqual({ kind: 'continue' });
    // GitHub task-list items with `*`, `+` and `1.` are open items like `- [ ]`.
    expect(gate({ plan: parseFixPlan('- [x] core\n* [ ] a\n+ [ ] b\n1. [ ] c') })).toEqual({ kind: 'continue' });
  });

  it('continues with nothing to go on, or with an empty plan and no claims', () => {
    expect(gate({})).toEqual({ kind: 'continue' });
    expect(gate({ plan: parseFixPlan('# Plan\n') })).toEqual({ kind: 'continue' });
  });
});

describe('evaluateExitGate: machine evidence beats claims', () => {
  it('three claims in a row against two open items halt with completion_conflict on the third', () => {
    const { results } = simulate([CLAIM, CLAIM, CLAIM], OPEN_PLAN);
    const open = ['Write the exit gate', 'Document exit codes'];
    expect(results[0]).toEqual({ kind: 'continue', conflict: { openItems: open, count: 1, limit: 3 } });
    expect(results[1]).toEqual({ kind: 'continue', conflict: { openItems: open, count: 2, limit: 3 } });
    expect(results[2]).toEqual({
      kind: 'exit',
      reason: 'completion_conflict',
      outcome: 'halted',
      conflict: { openItems: open, count: 3, limit: 3 },
    });
  });

  it('names the open items in the next loop context', () => {
    const { results, analyses } = simulate([CLAIM], OPEN_PLAN);
    const first = results[0];
    const context = buildLoopContext({
      loop: 2,
      plan: OPEN_PLAN,
      breakerState: 'CLOSED',
      previousAnalysis: analyses[0] ?? null,
      openItemsConflict: first?.kind === 'continue' ? first.conflict : undefined,
    });
    expect(context).toContain('fix_plan.md still has 2 open items:\n- Write the exit gate\n- Document exit codes');
  });

  it('a loop without a claim breaks the run of conflicts', () => {
    const { results } = simulate([CLAIM, CLAIM, WORKING, CLAIM, CLAIM], OPEN_PLAN);
    expect(results.map((r) => (r.kind === 'exit' ? r.reason : (r.conflict?.count ?? 0)))).toEqual([1, 2, 0, 1, 2]);
  });

  it('honours COMPLETION_CONFLICT_LIMIT', () => {
    const { results } = simulate([CLAIM], OPEN_PLAN, { completionConflictLimit: 1 });
    expect(results[0]).toMatchObject({ kind: 'exit', reason: 'completion_conflict' });
  });

  it('lets the claims through once the agent has checked the items off', () => {
    const signals = { test_only_loops: [], done_signals: [1, 2], completion_indicators: [1, 2] };
    const claim = analysisOf(CLAIM, 3);
    expect(gate({ exitSignals: signals, analysis: claim, plan: OPEN_PLAN, conflictCount: 1 })).toMatchObject({ kind: 'continue' });
    expect(gate({ exitSignals: signals, analysis: claim, plan: DONE_PLAN, conflictCount: 2 })).toMatchObject({
      kind: 'exit',
      reason: 'project_complete',
    });
  });

  it('keeps earlier claims waiting silently while the plan is open and the latest loop claims nothing', () => {
    const signals = { test_only_loops: [], done_signals: [1, 2], completion_indicators: [1, 2, 3, 4, 5] };
    expect(gate({ exitSignals: signals, analysis: analysisOf(WORKING, 6), plan: OPEN_PLAN })).toEqual({ kind: 'continue' });
  });

  it('claims end the run when there is no fix_plan.md at all', () => {
    const { results } = simulate([CLAIM, CLAIM], null);
    expect(results[1]).toMatchObject({ kind: 'exit', reason: 'project_complete' });
  });

  it('EXIT_REQUIRES_PLAN_COMPLETE=false restores the Bash behaviour: claims exit with items open', () => {
    const { results } = simulate([CLAIM, CLAIM], OPEN_PLAN, { exitRequiresPlanComplete: false });
    expect(results[0]).toEqual({ kind: 'continue' });
    expect(results[1]).toEqual({ kind: 'exit', reason: 'completion_signals', outcome: 'completed' });
  });

  it('EXIT_REQUIRES_PLAN_COMPLETE=false evaluates the claims in the Bash order', () => {
    const bash = { exitRequiresPlanComplete: false };
    const claim = analysisOf(CLAIM, 3);
    const both = { test_only_loops: [], done_signals: [1, 2], completion_indicators: [1, 2] };
    expect(gate({ exitSignals: both, analysis: claim })).toMatchObject({ reason: 'project_complete' });
    expect(gate({ exitSignals: both, analysis: claim }, bash)).toMatchObject({ reason: 'completion_signals' });
    const fiveIndicators = { test_only_loops: [], done_signals: [1], completion_indicators: [1, 2, 3, 4, 5] };
    expect(gate({ exitSignals: fiveIndicators, analysis: claim })).toMatchObject({ reason: 'project_complete' });
    expect(gate({ exitSignals: fiveIndicators, analysis: claim }, bash)).toMatchObject({ reason: 'safety_circuit_breaker' });
    const indicatorsOnly = { test_only_loops: [], done_signals: [2], completion_indicators: [1, 2] };
    expect(gate({ exitSignals: indicatorsOnly, analysis: claim }, bash)).toMatchObject({ reason: 'project_complete' });
    expect(gate({ exitSignals: indicatorsOnly, analysis: analysisOf(WORKING, 3) }, bash)).toEqual({ kind: 'continue' });
  });

  it('an explicit EXIT_SIGNAL: false beats STATUS: COMPLETE: no done signals, no exit', () => {
    const falseComplete = jsonOutput('Done.\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---');
    const { results, signals } = simulate([falseComplete, falseComplete, falseComplete], null);
    expect(results.every((r) => r.kind === 'continue')).toBe(true);
    expect(signals).toEqual(emptyExitSignals());
  });

  it('the TASKS_COMPLETED_THIS_LOOP line never makes text mode exit (Bash bug)', () => {
    const textLoop = 'Refactored.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\n---END_RALPH_STATUS---';
    const { results, signals } = simulate([textLoop, textLoop, textLoop], null);
    expect(results.every((r) => r.kind === 'continue')).toBe(true);
    expect(signals.done_signals).toEqual([]);
  });

  it('a failed run (is_error) is never a claim', () => {
    const failed = analysisOf(jsonOutput('---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---', { is_error: true }));
    expect(gate({ analysis: failed, plan: OPEN_PLAN })).toEqual({ kind: 'continue' });
  });
});

describe('nextConflictCount', () => {
  it('counts conflicting claims; a loop without the claim resets the count only when it made progress', () => {
    const conflict = { openItems: ['a'], count: 1, limit: 3 };
    expect(nextConflictCount(0, { kind: 'continue', conflict }, false)).toBe(1);
    expect(nextConflictCount(2, { kind: 'continue', conflict }, true)).toBe(3);
    expect(nextConflictCount(2, { kind: 'continue' }, true)).toBe(0);
    expect(nextConflictCount(2, { kind: 'continue' }, false)).toBe(2);
    expect(nextConflictCount(2, { kind: 'exit', reason: 'plan_complete', outcome: 'completed' }, true)).toBe(0);
  });

  it('EXIT_SIGNAL flipping true/false without new content still reaches the conflict limit', () => {
    let count = 0;
    const results: ExitGateResult[] = [];
    [CLAIM, WORKING, CLAIM, WORKING, CLAIM].forEach((output, i) => {
      const result = gate({ analysis: analysisOf(output, i + 1), plan: OPEN_PLAN, conflictCount: count });
      count = nextConflictCount(count, result, false);
      results.push(result);
    });
    expect(results.map((r) => r.kind)).toEqual(['continue', 'continue', 'continue', 'continue', 'exit']);
    expect(results[4]).toMatchObject({ reason: 'completion_conflict', conflict: { count: 3 } });
  });
});
