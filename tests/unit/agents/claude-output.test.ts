import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectOutputFormat, extractAgentResult, summarizeStream, type AgentResultSummary } from '../../../lib/agents/claude-output.js';
import { createStreamAccumulator } from '../../../lib/agents/stream-json.js';

const recording = (label: string): string => readFileSync(new URL(`../../fixtures/recordings/${label}.stdout`, import.meta.url), 'utf8');

type Expected = Partial<Omit<AgentResultSummary, 'stream' | 'declared'>>;

const RECORDED: Array<[string, Expected]> = [
  [
    'happy_json',
    {
      format: 'json',
      hasResult: true,
      resultText: 'Updated notes.txt and listed the directory. All tasks complete.',
      isError: false,
      subtype: 'success',
      sessionId: 'a82f425d-b64a-4dea-849c-1a7485fe7fe6',
      usage: { input: 4800, output: 240, cacheRead: 60000, cacheCreation: 0 },
      totalCostUsd: 0.036000000000000004,
      permissionDenials: [],
      apiErrorStatus: null,
      terminalReason: 'completed',
      errors: [],
      numTurns: 4,
      hasResultField: true,
    },
  ],
  [
    'happy_sj',
    {
      format: 'stream-json',
      hasResult: true,
      resultText: 'Updated notes.txt and listed the directory. All tasks complete.',
      isError: false,
      sessionId: '0be36961-1027-4798-ad92-cea55f3781b6',
      usage: { input: 4800, output: 240, cacheRead: 60000, cacheCreation: 0 },
      numTurns: 4,
    },
  ],
  [
    'json_verbose',
    {
      format: 'json',
      hasResult: true,
      resultText: 'Hello from the mock. All done.',
      sessionId: '55f90cc1-437c-4d01-984f-4efae0e5b0d7',
      usage: { input: 1200, output: 60, cacheRead: 15000, cacheCreation: 0 },
      totalCostUsd: 0.009000000000000001,
    },
  ],
  [
    'deny_json',
    {
      format: 'json',
      isError: false,
      sessionId: '2d4984f5-0805-4784-a629-2097504dd555',
      permissionDenials: [
        {
          toolName: 'Edit',
          toolUseId: 'toolu_01EditMock000000000002',
          input: {
            file_path: '/home/user/project/notes.txt',
            old_string: 'TODO: fix',
            new_string: 'DONE: fixed',
            replace_all: false,
          },
        },
      ],
    },
  ],
  [
    'deny_sj',
    {
      format: 'stream-json',
      isError: false,
      resultText: 'Updated notes.txt and listed the directory. All tasks complete.',
      sessionId: 'fcbb9105-089b-4d3a-97dc-216bf201d1d2',
      permissionDenials: [
        {
          toolName: 'Edit',
          toolUseId: 'toolu_01EditMock000000000002',
          input: {
            file_path: '/home/user/project/notes.txt',
            old_string: 'TODO: fix',
            new_string: 'DONE: fixed',
            replace_all: false,
          },
        },
      ],
    },
  ],
  [
    'denybash_sj',
    {
      format: 'stream-json',
      isError: false,
      sessionId: 'ec1f2214-0056-4955-ad99-63fbadb85e39',
      permissionDenials: [
        {
          toolName: 'Bash',
          toolUseId: 'toolu_01BashMock000000000003',
          input: { command: 'npm test', description: 'Run command' },
        },
      ],
    },
  ],
  [
    'maxturns_json',
    {
      format: 'json',
      hasResult: true,
      resultText: '',
      isError: true,
      subtype: 'error_max_turns',
      terminalReason: 'max_turns',
      errors: ['Reached maximum number of turns (2)'],
      numTurns: 3,
      hasResultField: false,
      totalCostUsd: 0.018000000000000002,
    },
  ],
  [
    'e401_json',
    {
      format: 'json',
      resultText: 'Invalid API key · Fix external API key',
      isError: true,
      subtype: 'success',
      apiErrorStatus: 401,
      apiErrorType: 'authentication_error',
      apiError: null,
      terminalReason: 'api_error',
    },
  ],
  [
    'e429oauth_sj',
    {
      format: 'stream-json',
      resultText: "You've hit your 5-hour limit · resets 5:45am (UTC)",
      isError: true,
      apiErrorStatus: 429,
      apiErrorType: 'rate_limit_error',
      apiError: 'usage_limit_reached',
      sessionId: 'a8ac08d8-ced8-421f-91ad-d092fcacef2f',
    },
  ],
  [
    'budget_json',
    {
      format: 'json',
      isError: true,
      subtype: 'error_max_budget_usd',
      errors: ['Reached maximum budget ($0.001)'],
      totalCostUsd: 0.009000000000000001,
      usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
      terminalReason: 'budget_exhausted',
    },
  ],
  ['text_happy', { format: 'text', hasResult: true, resultText: 'Hello from the mock. All done.', isError: false, sessionId: null }],
  ['text_tools', { format: 'text', resultText: 'Updated notes.txt and listed the directory. All tasks complete.' }],
  ['sigterm_sj', { format: 'stream-json', hasResult: false, resultText: '', sessionId: '0890414d-2910-4b36-a30a-795af59ea559' }],
  ['sigint_sj', { format: 'stream-json', hasResult: false, isError: false, sessionId: '54c1d303-dd9e-4231-939e-c57cdfef4ed7' }],
];

describe('extractAgentResult on real CLI 2.1.332 recordings', () => {
  it.each(RECORDED)('%s', (label, expected) => {
    expect(extractAgentResult(recording(label))).toMatchObject(expected);
  });

  it('keeps the stream facts for stream-json output', () => {
    const summary = extractAgentResult(recording('e429oauth_sj'));
    expect(summary.stream?.rateLimit?.status).toBe('rejected');
    expect(summary.stream?.sawInit).toBe(true);
  });

  // total_cost_usd and modelUsage are cumulative across --resume; model_usage_since_last_result is this run's.
  it("takes the run's own cost from model_usage_since_last_result (stream-json), none from json", () => {
    expect(extractAgentResult(recording('happy_sj')).sinceLastResultCostUsd).toBeCloseTo(0.036, 12);
    expect(extractAgentResult(recording('happy_json')).sinceLastResultCostUsd).toBeNull();
    const resumed = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'ok',
      session_id: 'S',
      total_cost_usd: 0.018,
      result_index: 0,
      modelUsage: { m: { costUSD: 0.018 } },
      model_usage_since_last_result: { m: { costUSD: 0.006 }, n: { costUSD: 0.003 } },
    });
    expect(extractAgentResult(`{"type":"system","subtype":"init","session_id":"S"}\n${resumed}\n`).sinceLastResultCostUsd).toBeCloseTo(0.009, 12);
    // A later result of the same process covers only its own turn: not the run's cost.
    const later = resumed.replace('"result_index":0', '"result_index":1');
    expect(extractAgentResult(`{"type":"system","subtype":"init","session_id":"S"}\n${later}\n`).sinceLastResultCostUsd).toBeNull();
  });

  it('measures the output length without trailing newlines', () => {
    expect(extractAgentResult('hello\n\n').outputLength).toBe(5);
  });
});

describe('detectOutputFormat', () => {
  it.each([
    ['', 'text'],
    ['   \n', 'text'],
    ['Just prose.', 'text'],
    ['{"type":"result","result":"x"}', 'json'],
    ['{\n  "type": "result",\n  "result": "pretty"\n}\n', 'json'],
    ['\uFEFF{"result":"bom"}', 'json'],
    ['[{"type":"system","subtype":"init"},{"type":"result"}]', 'json'],
    ['[not json', 'text'],
    ['{"type":"system","subtype":"init","session_id":"s"}\n{"type":"result","result":"r"}\n', 'stream-json'],
    ['{"type":"system","subtype":"init","session_id":"s"}\n', 'stream-json'],
    ['{"truncated":', 'text'],
    ['(node:1) Warning: x\n{"type":"result","result":"r","session_id":"s"}\n', 'stream-json'],
    ['Here is code:\n{"type":"thing"}\n', 'text'],
  ])('%j → %s', (text, format) => {
    expect(detectOutputFormat(text)).toBe(format);
  });
});

describe('extractAgentResult shapes beyond 2.1.332', () => {
  it('a JSON array without a result element gives an empty result with the init session id', () => {
    const summary = extractAgentResult('[{"type":"system","subtype":"init","session_id":"init-1"},{"type":"assistant"}]');
    expect(summary).toMatchObject({ format: 'json', hasResult: false, resultText: '', sessionId: 'init-1' });
  });

  it('takes the first result element of an array: later ones are after-result output', () => {
    const summary = extractAgentResult('[{"type":"result","result":"first"},{"type":"result","result":"last"}]');
    expect(summary.resultText).toBe('first');
  });

  it('reads CLI 1.0.x total_cost and the sessionId / metadata.session_id spellings', () => {
    expect(extractAgentResult('{"type":"result","result":"r","total_cost":0.5}').totalCostUsd).toBe(0.5);
    expect(extractAgentResult('{"result":"r","sessionId":"camel"}').sessionId).toBe('camel');
    expect(extractAgentResult('{"result":"r","metadata":{"session_id":"meta"}}').sessionId).toBe('meta');
  });

  it('reads the Bash flat format', () => {
    const flat = JSON.stringify({
      status: 'COMPLETE',
      exit_signal: true,
      work_type: 'TEST_ONLY',
      files_modified: 4,
      error_count: 2,
      summary: 'All done',
      confidence: 30,
      loop_number: 7,
    });
    const summary = extractAgentResult(flat);
    expect(summary.resultText).toBe('All done');
    expect(summary.hasResultField).toBe(false);
    expect(summary.declared).toEqual({
      status: 'COMPLETE',
      exitSignal: true,
      workType: 'TEST_ONLY',
      filesModified: 4,
      errorCount: 2,
      confidence: 30,
    });
  });

  it('reads the old CLI metadata object', () => {
    const summary = extractAgentResult(
      JSON.stringify({
        result: 'r',
        metadata: { files_changed: 3, has_errors: true, completion_status: 'complete', progress_indicators: ['a', 'b'] },
      }),
    );
    expect(summary.declared).toEqual({ status: 'COMPLETE', filesModified: 3, errorCount: 1, progressIndicatorCount: 2 });
  });

  it('tolerates unknown fields, odd types and missing fields', () => {
    const summary = extractAgentResult('{"zzz":1,"usage":"nope","permission_denials":[null,{"tool_input":7}],"is_error":"yes"}');
    expect(summary.isError).toBe(false);
    expect(summary.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
    expect(summary.permissionDenials).toEqual([
      { toolName: 'unknown', toolUseId: null, input: {} },
      { toolName: 'unknown', toolUseId: null, input: {} },
    ]);
  });

  it('uses the agent text tail as the result of a stream cut short', () => {
    const text =
      '{"type":"system","subtype":"init","session_id":"s1"}\n' + '{"type":"assistant","message":{"content":[{"type":"text","text":"Working on it"}]}}\n';
    expect(extractAgentResult(text)).toMatchObject({ hasResult: false, resultText: 'Working on it', sessionId: 's1' });
  });
});

describe('summarizeStream', () => {
  it('turns an accumulator fed line by line into the same summary as extractAgentResult', () => {
    const text = recording('happy_sj');
    const acc = createStreamAccumulator();
    for (const line of text.split('\n')) acc.push(line);
    const fromStream = summarizeStream(acc.snapshot(), text.trimEnd().length);
    const whole = extractAgentResult(text);
    expect({ ...fromStream, stream: null }).toEqual({ ...whole, stream: null });
  });
});
