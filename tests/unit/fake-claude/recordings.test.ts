// The fake `claude` against real 2.1.332 recordings: same exit codes, the same line types in
// the same order, the same field names on every line and result, and identical text where
// the output is deterministic; every error the real CLI prints before a run, byte for byte.
// This is the fake's one self-test: the rest of what it can do is proven by the tests using it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HAPPY_NOTES,
  HAPPY_STEPS,
  parseJsonLines,
  replayRecording,
  startClaude,
  withFakeClaude,
  type FakeClaude,
  type FakeClaudeOptions,
  type FakeScenario,
} from '../../helpers/fake-claude.js';

type Json = Record<string, unknown>;
const FIX = 'Fix the TODO in notes.txt then list files';
const ALLOW = ['--allowedTools', 'Read,Edit,Bash(ls *)'];
const keysOf = (o: unknown) => Object.keys(o as Json).sort();
const kindOf = (m: Json) => (m.subtype ? `${String(m.type)}/${String(m.subtype)}` : String(m.type));

let fake: FakeClaude | undefined;
let project = '';

function setup(scenario: FakeScenario, options?: FakeClaudeOptions): FakeClaude {
  fake = withFakeClaude(scenario, options);
  project = join(fake.root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), HAPPY_NOTES);
  return fake;
}

afterEach(() => {
  fake?.cleanup();
  fake = undefined;
});

/** Same line kinds in the same order, same keys per line (and per message / tool result). */
function expectSameShape(actual: Json[], recorded: Json[]) {
  expect(actual.map(kindOf)).toEqual(recorded.map(kindOf));
  actual.forEach((line, i) => {
    const rec = recorded[i] as Json;
    expect(keysOf(line), `keys of line ${i} (${kindOf(line)})`).toEqual(keysOf(rec));
    for (const nested of ['message', 'tool_use_result', 'rate_limit_info', 'usage', 'modelUsage']) {
      const a = line[nested];
      const b = rec[nested];
      if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a)) {
        expect(keysOf(a), `keys of line ${i}.${nested}`).toEqual(keysOf(b));
      }
    }
  });
}

/** Result values that do not depend on ids, clocks or paths. */
function stableResultFields(result: Json) {
  const {
    num_turns,
    total_cost_usd,
    usage,
    modelUsage,
    subtype,
    is_error,
    stop_reason,
    terminal_reason,
    result: text,
    errors,
    api_error_status,
    api_error_type,
    api_error,
  } = result;
  return {
    num_turns,
    total_cost_usd,
    usage,
    modelUsage,
    subtype,
    is_error,
    stop_reason,
    terminal_reason,
    text,
    errors,
    api_error_status,
    api_error_type,
    api_error,
  };
}

describe('fake claude vs recordings: tool runs', () => {
  beforeEach(() => setup({ calls: [{ steps: HAPPY_STEPS }] }));

  it('happy_json: same result fields and values, and the Edit really happened', async () => {
    const rec = replayRecording('happy_json');
    const run = await fake!.run(['-p', FIX, '--output-format', 'json', ...ALLOW], { cwd: project });
    expect(run.code).toBe(rec.rc);
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const result = JSON.parse(run.stdout) as Json;
    const recorded = JSON.parse(rec.stdout) as Json;
    expect(keysOf(result)).toEqual(keysOf(recorded));
    expect(stableResultFields(result)).toEqual(stableResultFields(recorded));
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('line one\nDONE: fixed\nline three\n');
  });

  it('happy_sj: same stream shape, one assistant line per block sharing message.id, result last', async () => {
    const rec = replayRecording('happy_sj');
    const run = await fake!.run(['-p', FIX, '--output-format', 'stream-json', '--verbose', ...ALLOW], { cwd: project });
    expect(run.code).toBe(rec.rc);
    const lines = parseJsonLines(run.stdout);
    const recorded = parseJsonLines(rec.stdout);
    expectSameShape(lines, recorded);
    const [textLine, readLine] = lines.slice(1, 3) as Array<{ message: { id: string } }>;
    expect(textLine!.message.id).toBe(readLine!.message.id);
    const readResult = (lines[3] as { message: { content: Array<{ content: string }> } }).message.content[0]!.content;
    const recordedRead = (recorded[3] as { message: { content: Array<{ content: string }> } }).message.content[0]!.content;
    expect(readResult).toBe(recordedRead);
    expect(stableResultFields(lines.at(-1)!)).toEqual(stableResultFields(recorded.at(-1)!));
  });

  it('deny_json: the Edit is denied in default mode, recorded in permission_denials, file untouched', async () => {
    const rec = replayRecording('deny_json');
    const run = await fake!.run(['-p', FIX, '--output-format', 'json'], { cwd: project });
    expect(run.code).toBe(rec.rc);
    const result = JSON.parse(run.stdout) as Json;
    const recorded = JSON.parse(rec.stdout) as Json;
    expect(keysOf(result)).toEqual(keysOf(recorded));
    const denials = JSON.parse(JSON.stringify(result.permission_denials).replaceAll(project, '/home/user/project')) as Array<Json>;
    expect(denials.map(({ tool_name, tool_input }) => ({ tool_name, tool_input }))).toEqual(
      (recorded.permission_denials as Json[]).map(({ tool_name, tool_input }) => ({ tool_name, tool_input })),
    );
    expect(stableResultFields(result)).toEqual(stableResultFields(recorded));
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe(HAPPY_NOTES);
  });

  it('deny_sj: permission_denied line and rejected tool_result have the recorded shape', async () => {
    const rec = replayRecording('deny_sj');
    const run = await fake!.run(['-p', FIX, '--output-format', 'stream-json', '--verbose'], { cwd: project });
    expect(run.code).toBe(rec.rc);
    expectSameShape(parseJsonLines(run.stdout), parseJsonLines(rec.stdout));
  });

  it('maxturns_json: error_max_turns with no result field, num_turns 3, exit 1', async () => {
    const rec = replayRecording('maxturns_json');
    const run = await fake!.run(['-p', FIX, '--output-format', 'json', '--max-turns', '2', ...ALLOW], { cwd: project });
    expect(run.code).toBe(rec.rc);
    const result = JSON.parse(run.stdout) as Json;
    const recorded = JSON.parse(rec.stdout) as Json;
    expect(keysOf(result)).toEqual(keysOf(recorded));
    expect('result' in result).toBe(false);
    expect(stableResultFields(result)).toEqual(stableResultFields(recorded));
  });

  it('maxturns_text and budget_text: the message on stdout without a newline', async () => {
    for (const [label, flag, value] of [
      ['maxturns_text', '--max-turns', '2'],
      ['budget_text', '--max-budget-usd', '0.001'],
    ] as const) {
      const rec = replayRecording(label);
      const run = await fake!.run(['-p', FIX, flag, value, ...ALLOW], { cwd: project });
      expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout: rec.stdout, stderr: rec.stderr, code: rec.rc });
    }
  });

  it('budget_json: error_max_budget_usd with zero usage but the spent cost', async () => {
    const rec = replayRecording('budget_json');
    const run = await fake!.run(['-p', FIX, '--output-format', 'json', '--max-budget-usd', '0.001', ...ALLOW], { cwd: project });
    expect(run.code).toBe(rec.rc);
    const result = JSON.parse(run.stdout) as Json;
    expect(keysOf(result)).toEqual(keysOf(JSON.parse(rec.stdout)));
    expect(stableResultFields(result)).toEqual(stableResultFields(JSON.parse(rec.stdout) as Json));
  });

  it('partial_sj: stream_event lines in the recorded order', async () => {
    const rec = replayRecording('partial_sj');
    const run = await fake!.run(['-p', FIX, '--output-format', 'stream-json', '--verbose', '--include-partial-messages', ...ALLOW], { cwd: project });
    expect(run.code).toBe(rec.rc);
    const lines = parseJsonLines(run.stdout);
    const recorded = parseJsonLines(rec.stdout);
    expectSameShape(lines, recorded);
    const events = (ls: Json[]) => ls.filter((l) => l.type === 'stream_event').map((l) => (l.event as Json).type);
    expect(events(lines)).toEqual(events(recorded));
  });
});

describe('fake claude vs recordings: single-reply runs', () => {
  const cases: Array<{ label: string; args: string[]; scenario: FakeScenario; options?: FakeClaudeOptions }> = [
    { label: 'json_verbose', args: ['--output-format', 'json', '--verbose'], scenario: {} },
    { label: 'oauth_ok_sj', args: ['--output-format', 'stream-json', '--verbose'], scenario: {}, options: { auth: 'subscription' } },
    {
      label: 'noauth_sjson_v',
      args: ['--output-format', 'stream-json', '--verbose'],
      scenario: {},
      options: { auth: 'none', env: { FAKE_CLAUDE_REQUIRE_AUTH: '1' } },
    },
    {
      label: 'e429oauth_sj',
      args: ['--output-format', 'stream-json', '--verbose'],
      scenario: { calls: [{ outcome: 'usage_limit' }] },
      options: { auth: 'subscription' },
    },
    { label: 'e429u_sj', args: ['--output-format', 'stream-json', '--verbose'], scenario: { calls: [{ outcome: 'rate_limited_api_key' }] } },
    { label: 'e529_sj', args: ['--output-format', 'stream-json', '--verbose'], scenario: { calls: [{ outcome: 'overloaded', retries: 2 }] } },
    { label: 'sjin', args: ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], scenario: {} },
    {
      label: 'dsp_root_sandbox',
      args: ['--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
      scenario: {},
      options: { asRoot: true, env: { IS_SANDBOX: '1' } },
    },
  ];
  for (const { label, args, scenario, options } of cases) {
    it(`${label}: same lines, same keys, same exit code`, async () => {
      setup(scenario, options);
      const rec = replayRecording(label);
      const input =
        label === 'sjin'
          ? '{"type":"user","message":{"role":"user","content":"hello"}}\n{"type":"user","message":{"role":"user","content":"again"}}\n'
          : undefined;
      const run = await fake!.run(['-p', ...(input ? [] : ['say hi']), ...args], { cwd: project, input });
      expect(run.code).toBe(rec.rc);
      if (label === 'json_verbose') {
        expectSameShape(JSON.parse(run.stdout) as Json[], JSON.parse(rec.stdout) as Json[]);
      } else {
        expectSameShape(parseJsonLines(run.stdout), parseJsonLines(rec.stdout));
      }
    });
  }

  const jsonErrors: Array<{ label: string; scenario: FakeScenario; options?: FakeClaudeOptions; env?: Record<string, string> }> = [
    { label: 'noauth_json', scenario: { calls: [{ outcome: 'not_logged_in' }] } },
    { label: 'e429_json', scenario: { calls: [{ outcome: 'rate_limited_api_key' }] } },
    { label: 'e500_json', scenario: { calls: [{ outcome: 'server_error_500' }] }, env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8765' } },
    { label: 'e529_json', scenario: { calls: [{ outcome: 'overloaded', retries: 0 }] }, env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8765' } },
    { label: 'etoolong_json', scenario: { calls: [{ outcome: 'prompt_too_long' }] } },
    { label: 'hang_json', scenario: { calls: [{ outcome: 'request_timeout' }] }, env: { API_TIMEOUT_MS: '4000' } },
    { label: 'netdown_json', scenario: { calls: [{ outcome: 'network_down' }] } },
    { label: 'e401_json', scenario: { calls: [{ outcome: 'invalid_api_key' }] } },
  ];
  for (const { label, scenario, env } of jsonErrors) {
    it(`${label}: result keys, error fields and text as recorded`, async () => {
      setup(scenario);
      const rec = replayRecording(label);
      const run = await fake!.run(['-p', 'say hi', '--output-format', 'json'], { cwd: project, env });
      expect(run.code).toBe(rec.rc);
      const result = JSON.parse(run.stdout) as Json;
      const recorded = JSON.parse(rec.stdout) as Json;
      expect(keysOf(result)).toEqual(keysOf(recorded));
      expect(stableResultFields(result)).toEqual(stableResultFields(recorded));
    });
  }

  const texts: Array<{ label: string; scenario: FakeScenario; options?: FakeClaudeOptions; env?: Record<string, string> }> = [
    { label: 'text_happy', scenario: {} },
    { label: 'e429_text', scenario: { calls: [{ outcome: 'rate_limited_api_key' }] } },
    { label: 'e429u_text', scenario: { calls: [{ outcome: 'rate_limited_api_key', errorText: 'API Error: Request rejected (429) · Rate limited' }] } },
    { label: 'e429oauth_text', scenario: { calls: [{ outcome: 'usage_limit', resetsAt: 1796017539 }] }, options: { auth: 'subscription' } },
    {
      label: 'e429_seven_day',
      scenario: { calls: [{ outcome: 'usage_limit', rateLimitType: 'seven_day', resetsAt: 1796017539 }] },
      options: { auth: 'subscription' },
    },
    { label: 'noauth_text', scenario: { calls: [{ outcome: 'not_logged_in' }] } },
    { label: 'netdown_text', scenario: { calls: [{ outcome: 'network_down' }] } },
    { label: 'credit', scenario: { calls: [{ outcome: 'credit_balance' }] } },
    { label: 'oauth_expired', scenario: { calls: [{ outcome: 'oauth_expired' }] }, options: { auth: 'subscription' } },
    { label: 'e413', scenario: { calls: [{ outcome: 'request_too_large' }] } },
  ];
  for (const { label, scenario, options, env } of texts) {
    it(`${label}: text output identical to the recording`, async () => {
      setup(scenario, options);
      const rec = replayRecording(label);
      const run = await fake!.run(['-p', 'say hi'], { cwd: project, env });
      expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout: rec.stdout, stderr: rec.stderr, code: rec.rc });
    });
  }
});

describe('fake claude vs recordings: signals', () => {
  let running: ReturnType<typeof startClaude> | undefined;
  afterEach(() => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
    running = undefined;
  });

  it('sigterm_sj: SIGTERM after init → exit 143, only the init line, same init keys', async () => {
    setup({ calls: [{ hang: 'afterInit' }] });
    const rec = replayRecording('sigterm_sj');
    const started = (running = startClaude(fake!, ['-p', 'say hi', '--output-format', 'stream-json', '--verbose'], { cwd: project }));
    const [initLine] = await started.waitForLines(1);
    started.child.kill('SIGTERM');
    const exit = await started.exited;
    expect(exit.code).toBe(rec.rc);
    expect(started.lines).toHaveLength(1);
    expect(keysOf(JSON.parse(initLine!))).toEqual(keysOf(parseJsonLines(rec.stdout)[0]));
  });

  it('sigint_sj: SIGINT after init → "[Request interrupted by user]" line, exit 0, no result', async () => {
    setup({ calls: [{ hang: 'afterInit' }] });
    const rec = replayRecording('sigint_sj');
    const started = (running = startClaude(fake!, ['-p', 'say hi', '--output-format', 'stream-json', '--verbose'], { cwd: project }));
    await started.waitForLines(1);
    started.child.kill('SIGINT');
    const exit = await started.exited;
    expect(exit.code).toBe(rec.rc);
    const lines = started.lines.map((l) => JSON.parse(l) as Json);
    expectSameShape(lines, parseJsonLines(rec.stdout));
    expect(JSON.stringify(lines[1])).toContain('[Request interrupted by user]');
  });
});

describe('fake claude vs recordings: refused before a run', () => {
  let refusing: FakeClaude;
  let cwd: string;
  beforeAll(() => {
    refusing = withFakeClaude({});
    cwd = join(refusing.root, 'project');
    mkdirSync(cwd);
    // s5 / sid_resume need an existing session on disk under this id
    const slugDir = join(refusing.configDir, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(slugDir, { recursive: true });
    writeFileSync(join(slugDir, '0a42b4cc-bff1-4f17-8a30-5513b0c655c6.jsonl'), '{"type":"fake_result","total_cost_usd":0.009}\n');
  });
  afterAll(() => refusing.cleanup());

  const refused: Array<{ label: string; args: string[]; env?: Record<string, string>; input?: string }> = [
    { label: 'badflag', args: ['-p', 'say hi', '--bogus-flag'] },
    { label: 'badfmt', args: ['-p', 'say hi', '--output-format', 'xml'] },
    { label: 'badperm', args: ['-p', 'say hi', '--permission-mode', 'yolo'] },
    { label: 'budget_bad', args: ['-p', 'say hi', '--max-budget-usd', '-1'] },
    { label: 'maxturns_bad', args: ['-p', 'say hi', '--max-turns', 'abc'] },
    { label: 'noprompt', args: ['-p'] },
    { label: 'noauth_sjson', args: ['-p', 'say hi', '--output-format', 'stream-json'] },
    { label: 'partial_json', args: ['-p', 'say hi', '--output-format', 'json', '--include-partial-messages'] },
    { label: 'sjin_bad', args: ['-p', '--input-format', 'stream-json', '--output-format', 'json'] },
    { label: 'bg_p', args: ['-p', '--bg', 'say hi'] },
    { label: 'dsp_root', args: ['-p', 'say hi', '--dangerously-skip-permissions'], env: { FAKE_CLAUDE_AS_ROOT: '1' } },
    { label: 'bypass_root', args: ['-p', 'say hi', '--permission-mode', 'bypassPermissions'], env: { FAKE_CLAUDE_AS_ROOT: '1' } },
    { label: 'mcp_missing', args: ['-p', 'say hi', '--mcp-config', '/nonexistent.json'] },
    { label: 'variadic', args: ['-p', '--allowedTools', 'Read', 'Edit', 'say hi'] },
    { label: 'sessid_bad', args: ['-p', 'say hi', '--session-id', 'not-a-uuid'] },
    { label: 'sid_resume', args: ['-p', 'say hi', '--resume', '0a42b4cc-bff1-4f17-8a30-5513b0c655c6', '--session-id', '11111111-2222-4333-8444-555555555555'] },
    { label: 's5', args: ['-p', 'say hi', '--output-format', 'json', '--session-id', '0a42b4cc-bff1-4f17-8a30-5513b0c655c6'] },
    { label: 'resume_badname', args: ['-p', 'say hi', '--resume', 'nosuchsession'] },
    { label: 'resume_unknown', args: ['-p', 'say hi', '--output-format', 'json', '--resume', '00000000-0000-4000-8000-000000000000'] },
  ];
  for (const { label, args, env, input } of refused) {
    it(`${label}: same stderr, empty stdout, same exit code as the real CLI`, async () => {
      const rec = replayRecording(label);
      const run = await refusing.run(args, { cwd, env, input });
      expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout: rec.stdout, stderr: rec.stderr, code: rec.rc });
    });
  }
});
