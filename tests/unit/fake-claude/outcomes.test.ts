// Failure outcomes and output oddities of the fake: usage limits in every wording, retries,
// the exit-code quirks, garbage output, split lines, limit text inside tool output, profiles.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { parseJsonLines, withFakeClaude, type FakeClaude, type FakeClaudeOptions, type FakeScenario } from '../../helpers/fake-claude.js';

type Json = Record<string, unknown>;
let fake: FakeClaude | undefined;
const make = (scenario: FakeScenario, options?: FakeClaudeOptions) => (fake = withFakeClaude(scenario, options));
afterEach(() => {
  fake?.cleanup();
  fake = undefined;
});
const STREAM = ['-p', 'say hi', '--output-format', 'stream-json', '--verbose'];
const RESETS_AT = 1796017539; // 05:45:39 UTC

describe('fake claude outcomes', () => {
  it('usage_limit with subscriber auth: rejected rate_limit_event, synthetic assistant, 429 result', async () => {
    make({ calls: [{ outcome: 'usage_limit', resetsAt: RESETS_AT }] }, { auth: 'subscription' });
    const run = await fake!.run(STREAM);
    expect(run.code).toBe(1);
    const [init, event, assistant, result] = parseJsonLines(run.stdout) as [Json, Json, Json, Json];
    expect((init as { apiKeySource: string }).apiKeySource).toBe('none');
    expect(event).toMatchObject({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: RESETS_AT, rateLimitType: 'five_hour' } });
    expect(assistant).toMatchObject({ type: 'assistant', error: 'rate_limit', api_error: 'usage_limit_reached', message: { model: '<synthetic>' } });
    expect(result).toMatchObject({
      type: 'result', subtype: 'success', is_error: true, api_error_status: 429, api_error: 'usage_limit_reached',
      result: "You've hit your 5-hour limit · resets 5:45am (UTC)",
    });
  });

  it('usage_limit with an API key: no rate_limit_event and no typed api_error', async () => {
    make({ calls: [{ outcome: 'usage_limit', resetsAt: RESETS_AT }] });
    const lines = parseJsonLines((await fake!.run(STREAM)).stdout);
    expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'result']);
    expect(lines[2]!.api_error).toBeUndefined();
  });

  it('prints every generation of the limit wording', async () => {
    make({ calls: [
      { outcome: 'usage_limit', family: '2.1.332', rateLimitType: 'seven_day_opus', resetsAt: RESETS_AT },
      { outcome: 'usage_limit', family: '2.1.early', resetsAt: 1796043600, timezone: 'Europe/Lisbon' },
      { outcome: 'usage_limit', family: '2.0', resetsAt: 1796050800 },
      { outcome: 'usage_limit', family: '1.0', resetsAt: 1750708800 },
      { outcome: 'extra_usage', resetsAt: 1796072400 },
      { outcome: 'usage_limit', limitText: 'Custom limit text · resets soon' },
    ] }, { auth: 'subscription' });
    const texts = [];
    for (let i = 0; i < 6; i++) texts.push((await fake!.run(['-p', 'x'])).stdout);
    expect(texts).toEqual([
      "You've hit your Opus limit · resets 5:45am (UTC)\n",
      "You've hit your limit · resets 1pm (Europe/Lisbon)\n",
      '5-hour limit reached ∙ resets 3pm\n',
      'Claude AI usage limit reached|1750708800\n',
      "You're out of extra usage · resets 9pm\n",
      'Custom limit text · resets soon\n',
    ]);
  });

  it('apiErrorExit 0 reproduces the exit-0-on-error quirk; exitCode overrides everything', async () => {
    make({ calls: [{ outcome: 'server_error_500', apiErrorExit: 0 }, { resultText: 'fine', exitCode: 7 }] });
    const quirk = await fake!.run(['-p', 'x', '--output-format', 'json']);
    expect(quirk.code).toBe(0);
    expect(JSON.parse(quirk.stdout)).toMatchObject({ is_error: true, api_error_status: 500 });
    expect((await fake!.run(['-p', 'x'])).code).toBe(7);
  });

  it('overloaded with recoverAfter: api_retry lines, then a normal successful run', async () => {
    make({ calls: [{ outcome: 'overloaded', recoverAfter: 2, resultText: 'recovered' }] });
    const lines = parseJsonLines((await fake!.run(STREAM)).stdout);
    expect(lines.filter((l) => l.subtype === 'api_retry').map((l) => l.attempt)).toEqual([1, 2]);
    expect(lines.at(-1)).toMatchObject({ is_error: false, result: 'recovered' });
  });

  it('limit-looking text inside a tool result while the run succeeds (ralph#184 trap)', async () => {
    make({ calls: [{ toolOutputContains: "You've hit your 5-hour limit · resets 3pm", resultText: 'All good.' }] });
    const lines = parseJsonLines((await fake!.run(STREAM)).stdout);
    const toolResult = lines.find((l) => l.type === 'user');
    expect(JSON.stringify(toolResult)).toContain("You've hit your 5-hour limit");
    expect(lines.at(-1)).toMatchObject({ is_error: false, result: 'All good.' });
  });

  it('isError generic, error_during_execution and subscriber warnings', async () => {
    make({ calls: [{ isError: true, resultText: 'odd' }, { outcome: 'error_during_execution', errors: ['tool crashed'] }, { warning: true }] }, { auth: 'subscription' });
    const generic = JSON.parse((await fake!.run(['-p', 'x', '--output-format', 'json'])).stdout) as Json;
    expect(generic).toMatchObject({ subtype: 'success', is_error: true, result: 'odd' });
    const during = await fake!.run(['-p', 'x', '--output-format', 'json']);
    expect(during.code).toBe(1);
    expect(JSON.parse(during.stdout)).toMatchObject({ subtype: 'error_during_execution', errors: ['tool crashed'] });
    const warned = parseJsonLines((await fake!.run(STREAM)).stdout);
    expect(warned.find((l) => l.type === 'rate_limit_event')).toMatchObject({ rate_limit_info: { status: 'allowed_warning', utilization: 0.9 } });
  });
});

describe('fake claude output oddities', () => {
  it('garbage kinds corrupt the stream in the promised way', async () => {
    const kinds = ['nonJson', 'truncatedJsonLine', 'emptyExit0', 'crlf', 'bom', 'duplicateResult', 'resultWithoutInit'] as const;
    make({ calls: kinds.map((garbage) => ({ garbage })) });
    const out: Record<string, { stdout: string; code: number | null }> = {};
    for (const kind of kinds) out[kind] = await fake!.run(STREAM);
    expect(out.nonJson!.stdout.split('\n')[1]).toBe('FAKE: this line is not JSON');
    expect(out.truncatedJsonLine!.stdout.endsWith('\n')).toBe(false);
    expect(() => JSON.parse(out.truncatedJsonLine!.stdout.split('\n').at(-1)!)).toThrow();
    expect(out.emptyExit0).toEqual(expect.objectContaining({ stdout: '', code: 0 }));
    expect(out.crlf!.stdout.split('\r\n').filter(Boolean)).toHaveLength(3);
    expect(out.bom!.stdout.startsWith('\uFEFF{')).toBe(true);
    expect(parseJsonLines(out.duplicateResult!.stdout).filter((l) => l.type === 'result')).toHaveLength(2);
    expect(parseJsonLines(out.resultWithoutInit!.stdout).map((l) => l.type)).toEqual(['assistant', 'result']);
  });

  it('hugeLine makes the final lines longer than 2 MB', async () => {
    make({ calls: [{ garbage: 'hugeLine' }] });
    const run = await fake!.run(STREAM);
    const longest = Math.max(...run.stdout.split('\n').map((l) => l.length));
    expect(longest).toBeGreaterThan(2 * 1024 * 1024);
    expect(parseJsonLines(run.stdout).at(-1)!.result).toMatch(/Hello from the mock\. All done\.$/);
  });

  it('chunking "split" breaks lines across writes; reassembled they are whole JSON lines', async () => {
    make({ calls: [{ chunking: 'split' }] });
    const chunks: string[] = [];
    await new Promise<void>((resolveRun) => {
      const child = spawn(fake!.claudePath, STREAM, { env: fake!.env, cwd: fake!.root, stdio: ['ignore', 'pipe', 'ignore'] });
      child.stdout.on('data', (d: Buffer) => chunks.push(d.toString('utf8')));
      child.on('close', () => resolveRun());
    });
    expect(chunks.some((c) => !c.endsWith('\n'))).toBe(true);
    expect(parseJsonLines(chunks.join('')).map((l) => l.type)).toEqual(['system', 'assistant', 'result']);
  });

  it('extraFields adds unknown keys and an unknown system subtype', async () => {
    make({ calls: [{ extraFields: true }] });
    const lines = parseJsonLines((await fake!.run(STREAM)).stdout);
    expect(lines.some((l) => l.subtype === 'fake_unknown_subtype')).toBe(true);
    expect(lines.every((l) => 'fake_unknown_field' in l)).toBe(true);
  });

  it('stderr noise on success: retired-model warning and unrecognized_model line', async () => {
    make({ calls: [{ stderrNoise: true }] });
    const run = await fake!.run(['-p', 'x', '--model', 'claude-sonnet-4-5']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('⚠ Claude Sonnet 4.5 was retired on November 30, 2026. Consider switching to a newer model.');
    expect(run.stderr).toContain('[claude-code:unrecognized_model] {"model":"claude-sonnet-4-5","query_source":"sdk"}');
  });

  it('profile 2.0.20 prints the smaller result field set', async () => {
    make({ defaults: { profile: '2.0.20' }, calls: [{}] });
    const result = JSON.parse((await fake!.run(['-p', 'x', '--output-format', 'json'])).stdout) as Json;
    expect(Object.keys(result).sort()).toEqual([
      'duration_api_ms', 'duration_ms', 'is_error', 'modelUsage', 'num_turns', 'permission_denials', 'result', 'session_id', 'subtype', 'total_cost_usd', 'type', 'usage', 'uuid',
    ]);
  });

  it('usage and costUsd override the run totals', async () => {
    make({ calls: [{ usage: { input_tokens: 10, output_tokens: 5 }, costUsd: 1.25 }] });
    const result = JSON.parse((await fake!.run(['-p', 'x', '--output-format', 'json'])).stdout) as { total_cost_usd: number; usage: Json };
    expect(result.total_cost_usd).toBe(1.25);
    expect(result.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
  });
});
