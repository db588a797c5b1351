import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractAgentResult, type AgentResultSummary } from '../../../lib/agents/claude-output.js';
import { analyzeResponse, type AnalyzeResponseOptions } from '../../../lib/analysis/response-analysis.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/recordings/${name}`, import.meta.url), 'utf8');

const NOW = new Date('2026-11-30T04:48:55.123Z');

function analyze(agent: AgentResultSummary, overrides: Partial<AnalyzeResponseOptions> = {}) {
  return analyzeResponse({
    agent,
    loopNumber: 1,
    filesChanged: 0,
    newContent: false,
    allowedTools: [],
    outputFile: '.ralph/logs/claude_output_x.log',
    now: NOW,
    ...overrides,
  });
}

/** A CLI 2.x json result whose text is `result`. */
function jsonResult(result: string, extra: Record<string, unknown> = {}): AgentResultSummary {
  return extractAgentResult(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, session_id: 's', ...extra }));
}

const text = (body: string) => extractAgentResult(body);

const block = (lines: string[]) => ['---RALPH_STATUS---', ...lines, '---END_RALPH_STATUS---'].join('\n');

describe('analyzeResponse matches the Bash tool on its own recorded loop', () => {
  it('gives the .response_analysis the Bash tool wrote for loop 2 (midrun fixture)', () => {
    const bash = JSON.parse(fixture('bash-0.11.5-midrun.response_analysis'));
    const ours = analyzeResponse({
      agent: extractAgentResult(fixture('bash-0.11.5-midrun.claude_output.log')),
      loopNumber: 2,
      filesChanged: 2,
      newContent: true,
      allowedTools: [],
      outputFile: bash.output_file,
      now: new Date('2026-11-30T04:48:55Z'),
    });
    expect(Object.keys(ours).sort()).toEqual(Object.keys(bash).sort());
    const { analysis: bashAnalysis, ...bashTop } = bash;
    const { analysis: ourAnalysis, ...ourTop } = ours;
    expect(ourTop).toEqual(bashTop);
    for (const key of Object.keys(bashAnalysis)) {
      expect({ [key]: (ourAnalysis as unknown as Record<string, unknown>)[key] }).toEqual({ [key]: bashAnalysis[key] });
    }
    expect(ourAnalysis).toMatchObject({ tests_status: 'PASSING', work_type: 'IMPLEMENTATION', tasks_completed: 1, is_error: false });
  });
});

describe('analyzeResponse, JSON / stream-json path (no prose heuristics, #224)', () => {
  it('happy_json: "All tasks complete" in prose is not a completion signal', () => {
    const { analysis, output_format } = analyze(extractAgentResult(fixture('happy_json.stdout')));
    expect(output_format).toBe('json');
    expect(analysis).toMatchObject({
      has_completion_signal: false,
      exit_signal: false,
      confidence_score: 70,
      work_summary: 'Updated notes.txt and listed the directory. All tasks complete.',
      is_error: false,
      ralph_status: null,
    });
  });

  it('happy_sj is analysed like happy_json', () => {
    const sj = analyze(extractAgentResult(fixture('happy_sj.stdout'))).analysis;
    const json = analyze(extractAgentResult(fixture('happy_json.stdout'))).analysis;
    expect({ ...sj, output_length: 0 }).toEqual({ ...json, output_length: 0 });
  });

  it.each([
    [['STATUS: COMPLETE', 'EXIT_SIGNAL: true'], true],
    [['EXIT_SIGNAL: true'], true],
    [['STATUS: COMPLETE'], true],
    [['STATUS: COMPLETE', 'EXIT_SIGNAL: false'], false],
    [['STATUS: IN_PROGRESS', 'EXIT_SIGNAL: false'], false],
    [['TESTS_STATUS: COMPLETE'], false],
  ])('block %j → exit_signal %s (explicit EXIT_SIGNAL false beats STATUS COMPLETE)', (lines, claim) => {
    const { analysis } = analyze(jsonResult(`Work done.\n${block(lines)}`));
    expect(analysis.exit_signal).toBe(claim);
    expect(analysis.has_completion_signal).toBe(claim);
    expect(analysis.confidence_score).toBe(claim ? 100 : 70);
  });

  it('is_error: true is a failed run: no claim counts even with EXIT_SIGNAL: true', () => {
    const agent = jsonResult(`API Error\n${block(['STATUS: COMPLETE', 'EXIT_SIGNAL: true', 'WORK_TYPE: TESTING'])}`, {
      is_error: true,
    });
    const { analysis } = analyze(agent);
    expect(analysis).toMatchObject({ is_error: true, exit_signal: false, has_completion_signal: false, is_test_only: false });
  });

  it('e401_json: failure recorded, error text kept as the summary', () => {
    const { analysis } = analyze(extractAgentResult(fixture('e401_json.stdout')));
    expect(analysis).toMatchObject({ is_error: true, exit_signal: false, work_summary: 'Invalid API key · Fix external API key' });
  });

  it('maxturns_json: no result text, so the errors are the summary', () => {
    const { analysis } = analyze(extractAgentResult(fixture('maxturns_json.stdout')));
    expect(analysis).toMatchObject({ is_error: true, work_summary: 'Reached maximum number of turns (2)', confidence_score: 50 });
  });

  it('WORK_TYPE: TESTING in the block makes a test-only loop', () => {
    expect(analyze(jsonResult(block(['WORK_TYPE: TESTING']))).analysis.is_test_only).toBe(true);
    expect(analyze(jsonResult(block(['WORK_TYPE: test_only']))).analysis.is_test_only).toBe(true);
    expect(analyze(jsonResult(block(['WORK_TYPE: IMPLEMENTATION']))).analysis.is_test_only).toBe(false);
  });

  it('progress and files_modified are what ralph measured; the declared count is kept beside them', () => {
    expect(analyze(jsonResult('x'), { filesChanged: 3, newContent: true }).analysis).toMatchObject({
      has_progress: true,
      files_modified: 3,
      files_modified_claimed: null,
      claim_disagreement: null,
    });
    const declared = extractAgentResult(JSON.stringify({ result: 'x', metadata: { files_changed: 4 } }));
    expect(analyze(declared).analysis).toMatchObject({
      has_progress: false,
      files_modified: 0,
      files_modified_claimed: 4,
      claim_disagreement: 'the agent reported FILES_MODIFIED: 4; ralph measured no changed files',
    });
  });

  it('a FILES_MODIFIED claim over content already seen is shown as not confirmed', () => {
    const claimed = jsonResult(block(['STATUS: IN_PROGRESS', 'FILES_MODIFIED: 3', 'EXIT_SIGNAL: false']));
    expect(analyze(claimed, { filesChanged: 1, newContent: false }).analysis).toMatchObject({
      has_progress: false,
      files_modified: 1,
      files_modified_claimed: 3,
      claim_disagreement: 'the agent reported FILES_MODIFIED: 3; ralph measured 1 changed file(s), but only back to content already seen in this run',
    });
    expect(analyze(claimed, { filesChanged: 2, newContent: true }).analysis.claim_disagreement).toBeNull();
  });

  it('reads the Bash flat format: declared exit signal, work type, error count and confidence', () => {
    const flat = (fields: Record<string, unknown>) => extractAgentResult(JSON.stringify({ summary: 's', ...fields }));
    expect(analyze(flat({ exit_signal: true })).analysis).toMatchObject({ exit_signal: true, confidence_score: 100 });
    expect(analyze(flat({ status: 'COMPLETE' })).analysis.exit_signal).toBe(true);
    expect(analyze(flat({ status: 'COMPLETE', exit_signal: false })).analysis.has_completion_signal).toBe(false);
    expect(analyze(flat({ work_type: 'TEST_ONLY' })).analysis.is_test_only).toBe(true);
    // In JSON the Bash tool reads only the top-level work_type, not the block's WORK_TYPE line.
    const implementationBlock = block(['STATUS: IN_PROGRESS', 'WORK_TYPE: IMPLEMENTATION', 'EXIT_SIGNAL: false']);
    expect(analyze(flat({ result: implementationBlock, work_type: 'TEST_ONLY' })).analysis).toMatchObject({ work_type: 'TEST_ONLY', is_test_only: true });
    // Agent-reported flat fields never count as progress.
    expect(analyze(flat({ files_modified: 4 }), { filesChanged: 0, newContent: false }).analysis).toMatchObject({
      has_progress: false,
      files_modified: 0,
      files_modified_claimed: 4,
    });
    expect(analyze(flat({ error_count: 6 })).analysis.is_stuck).toBe(true);
    expect(analyze(flat({ error_count: 5 })).analysis.is_stuck).toBe(false);
    expect(analyze(flat({ confidence: 10 })).analysis.confidence_score).toBe(60);
    const withIndicators = extractAgentResult(JSON.stringify({ result: 'r', metadata: { progress_indicators: [1, 2] } }));
    expect(analyze(withIndicators).analysis.confidence_score).toBe(80);
  });

  it('counts more than 5 error lines in the result text as stuck', () => {
    const errors = Array.from({ length: 6 }, (_, i) => `Error: step ${i} failed`).join('\n');
    const { analysis } = analyze(jsonResult(errors));
    expect(analysis).toMatchObject({ is_stuck: true, error_count: 6, error_signature: 'error: step # failed\nerror: step # failed\nerror: step # failed' });
  });

  it('detects questions in the result', () => {
    const { analysis } = analyze(jsonResult('Should I use Postgres or SQLite?\nWhich approach do you prefer?'));
    expect(analysis).toMatchObject({ asking_questions: true, question_count: 3 });
  });

  it('reports permission denials (deny_json) and halting denials from stream-json (denybash_sj)', () => {
    expect(analyze(extractAgentResult(fixture('deny_json.stdout'))).analysis).toMatchObject({
      has_permission_denials: true,
      permission_denial_count: 1,
      denied_commands: ['Edit'],
      has_compound_command_limitation: false,
    });
    const bash = extractAgentResult(fixture('denybash_sj.stdout'));
    expect(analyze(bash, { allowedTools: ['Read', 'Edit'] }).analysis).toMatchObject({
      has_permission_denials: true,
      denied_commands: ['Bash(npm test)'],
    });
    expect(analyze(bash, { allowedTools: ['Read', 'Edit', 'Bash(npm *)'] }).analysis).toMatchObject({
      has_permission_denials: false,
      permission_denial_count: 1,
      has_compound_command_limitation: true,
      compound_command_count: 1,
    });
  });

  it('a stream cut short is analysed from the agent text it did print', () => {
    const cut =
      '{"type":"system","subtype":"init","session_id":"s"}\n' +
      `{"type":"assistant","message":{"content":[{"type":"text","text":${JSON.stringify(block(['EXIT_SIGNAL: true']))}}]}}\n`;
    const { analysis, output_format } = analyze(extractAgentResult(cut), { filesChanged: 1, newContent: true });
    expect(output_format).toBe('json');
    expect(analysis.exit_signal).toBe(true);
  });
});

describe('analyzeResponse, text path (Bash bugs fixed)', () => {
  const statusInProgress = block([
    'STATUS: IN_PROGRESS',
    'TASKS_COMPLETED_THIS_LOOP: 1',
    'FILES_MODIFIED: 2',
    'TESTS_STATUS: PASSING',
    'WORK_TYPE: IMPLEMENTATION',
    'RECOMMENDATION: keep going',
  ]);

  it('does not count TASKS_COMPLETED_THIS_LOOP as a "complete" word', () => {
    const { analysis, output_format } = analyze(text(`Refactored the parser.\n${statusInProgress}\n`));
    expect(output_format).toBe('text');
    expect(analysis).toMatchObject({ has_completion_signal: false, exit_signal: false, confidence_score: 0, tasks_completed: 1 });
  });

  it.each([
    ['The refactor is done.', true],
    ['Project complete and ready for review', true],
    ['All tasks complete', true],
    ['Finished!', true],
    ['Completed the first step', false],
    ['Abandoned approach', false],
    ['Incomplete work remains', false],
  ])('%j → completion signal %s (whole words only)', (prose, signal) => {
    const { analysis } = analyze(text(prose));
    expect(analysis.has_completion_signal).toBe(signal);
    expect(analysis.exit_signal).toBe(false);
  });

  it('an explicit EXIT_SIGNAL: false beats completion words in the prose', () => {
    const { analysis } = analyze(text(`All done here.\n${block(['STATUS: COMPLETE', 'EXIT_SIGNAL: false'])}`));
    expect(analysis).toMatchObject({ has_completion_signal: false, exit_signal: false });
  });

  it('STATUS: COMPLETE without EXIT_SIGNAL is an exit at full confidence', () => {
    const { analysis } = analyze(text(`Wrapped up.\n${block(['STATUS: COMPLETE'])}`));
    expect(analysis).toMatchObject({ has_completion_signal: true, exit_signal: true, confidence_score: 100 });
  });

  it('heuristics alone never reach the 70% needed to exit (#224)', () => {
    const agent = text('Everything is done. Nothing to do, no changes needed.');
    const { analysis } = analyze(agent, { filesChanged: 2, newContent: true });
    expect(analysis).toMatchObject({
      has_completion_signal: true,
      confidence_score: 45,
      exit_signal: false,
      has_progress: true,
      files_modified: 2,
      work_summary: 'No work remaining',
    });
  });

  it.each([
    ['Running tests\nnpm test passed: 42 tests', true],
    ['pytest -q\n3 passed', true],
    ['Running tests\nAdding a helper function', false],
    ['Refactored the module', false],
  ])('%j → test only %s', (body, testOnly) => {
    const { analysis } = analyze(text(body));
    expect(analysis.is_test_only).toBe(testOnly);
    if (testOnly) expect(analysis.work_summary).toBe('Test execution only, no implementation');
  });

  it('WORK_TYPE: TESTING counts as test-only in text mode too', () => {
    expect(analyze(text(`Wrote more tests.\n${block(['WORK_TYPE: TESTING'])}`)).analysis.is_test_only).toBe(true);
  });

  it('questions set the summary that the next loop context reacts to', () => {
    const { analysis } = analyze(text('I found two options. Would you like me to use the first?'));
    expect(analysis).toMatchObject({
      asking_questions: true,
      question_count: 1,
      work_summary: 'Claude is asking questions instead of acting autonomously',
    });
  });

  it('summary falls back to a summary-like line, then the recommendation, then a default', () => {
    expect(analyze(text('noise\nImplemented the exit gate and its tests\nmore')).analysis.work_summary).toBe('Implemented the exit gate and its tests');
    expect(analyze(text(`noise\n${statusInProgress}`)).analysis.work_summary).toBe('keep going');
    expect(analyze(text('noise')).analysis.work_summary).toBe('Output analyzed, no explicit summary found');
  });

  it('counts error lines with the two-stage filter and marks > 5 as stuck', () => {
    const lines = [...Array.from({ length: 6 }, () => 'ERROR: build failed'), '"is_error": false,'];
    expect(analyze(text(lines.join('\n'))).analysis).toMatchObject({ is_stuck: true, error_count: 6 });
    expect(analyze(text(lines.slice(1).join('\n'))).analysis.is_stuck).toBe(false);
  });

  it('reports no permission denials and the Bash timestamp shape', () => {
    const result = analyze(text('hello'), { loopNumber: 9 });
    expect(result).toMatchObject({ loop_number: 9, timestamp: '2026-11-30T04:48:55+00:00', output_format: 'text' });
    expect(result.analysis).toMatchObject({
      has_permission_denials: false,
      permission_denial_count: 0,
      denied_commands: [],
      has_compound_command_limitation: false,
      compound_command_count: 0,
      output_length: 5,
    });
  });
});
