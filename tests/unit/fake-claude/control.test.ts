// The fake's control surface: scenario call selection (sequence, match, exhaustion), the
// atomic call counter and invocation log, stdin handling and deterministic ids.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayRecording, withFakeClaude, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';

const fakes: FakeClaude[] = [];
function make(scenario: FakeScenario, options?: Parameters<typeof withFakeClaude>[1]): FakeClaude {
  const fake = withFakeClaude(scenario, options);
  fakes.push(fake);
  return fake;
}
afterEach(() => {
  for (const fake of fakes.splice(0)) fake.cleanup();
});

describe('fake claude scenario control', () => {
  it('serves calls in order, logs each one with argv, cwd, prompt and exit code', async () => {
    const fake = make({ calls: [{ resultText: 'first' }, { resultText: 'second' }, { outcome: 'network_down' }] });
    const outputs = [];
    for (const prompt of ['one', 'two', 'three']) outputs.push(await fake.run(['-p', prompt, '--model', 'sonnet']));
    expect(outputs.map((o) => [o.stdout, o.code])).toEqual([
      ['first\n', 0], ['second\n', 0], ["API Error: Can't reach the API server — check your internet or DNS (EAI_AGAIN)\n", 1],
    ]);
    const calls = fake.calls();
    expect(calls.map((c) => [c.index, c.scenarioCall, c.prompt, c.exitCode, c.finished])).toEqual([
      [0, 0, 'one', 0, true], [1, 1, 'two', 0, true], [2, 2, 'three', 1, true],
    ]);
    expect(calls[0]!.argv).toEqual(['-p', 'one', '--model', 'sonnet']);
    expect(calls[0]!.cwd).toBe(fake.root);
    expect(calls[0]!.model).toBe('claude-sonnet-5-5');
  });

  it('--version and flag errors are logged but do not consume scenario calls', async () => {
    const fake = make({ calls: [{ resultText: 'first' }, { resultText: 'second' }] });
    await fake.run(['--version']);
    await fake.run(['-p', 'x', '--bogus']);
    const run = await fake.run(['-p', 'real']);
    expect(run.stdout).toBe('first\n');
    expect(fake.calls().map((c) => c.exitCode)).toEqual([0, 1, 0]);
    expect(fake.runs().map((c) => c.prompt)).toEqual(['real']);
  });

  it('match entries win when they match and leave the sequence alone; repeatLast after the end', async () => {
    const fake = make({ calls: [
      { resultText: 'fresh-1' },
      { match: { argvIncludes: ['--resume'] }, outcome: 'usage_limit', limitText: 'limit!' },
      { match: { promptRegex: '^status' }, resultText: 'status reply' },
      { resultText: 'fresh-2' },
    ] });
    const first = await fake.run(['-p', 'go', '--output-format', 'json']);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const resumed = await fake.run(['-p', 'go', '--resume', id]);
    const status = await fake.run(['-p', 'status please']);
    const second = await fake.run(['-p', 'go']);
    const third = await fake.run(['-p', 'go']);
    expect([resumed.stdout, status.stdout, second.stdout, third.stdout]).toEqual(['limit!\n', 'status reply\n', 'fresh-2\n', 'fresh-2\n']);
    expect(fake.runs().map((c) => c.entry)).toEqual([0, 1, 2, 3, 3]);
  });

  it('onExhausted "error" fails loudly once the list is used up', async () => {
    const fake = make({ onExhausted: 'error', calls: [{ resultText: 'only' }] });
    expect((await fake.run(['-p', 'a'])).stdout).toBe('only\n');
    const second = await fake.run(['-p', 'b']);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain('FAKE: scenario exhausted');
  });

  it('a 300 KiB prompt on stdin arrives and is logged intact', async () => {
    const fake = make({});
    const line = 'The quick brown fox jumps over the lazy dog — ünïcödé ✓ 0123456789\n';
    const prompt = line.repeat(Math.ceil((300 * 1024) / Buffer.byteLength(line)));
    const run = await fake.run(['-p', '--output-format', 'json'], { input: prompt });
    expect(run.code).toBe(0);
    const [call] = fake.runs();
    expect(call!.stdin).toBe(prompt);
    expect(call!.prompt).toBe(prompt);
    expect(Buffer.byteLength(call!.stdin!)).toBeGreaterThanOrEqual(300 * 1024);
  });

  it('logs credentials only as "set", and the env vars a loop tool is judged on', async () => {
    const fake = make({});
    await fake.run(['-p', 'x'], { env: { DISABLE_AUTOUPDATER: '1', RALPH_LOOP: '7' } });
    const env = fake.calls()[0]!.env;
    expect(env.ANTHROPIC_API_KEY).toBe('set');
    expect(env.CLAUDE_CODE_OAUTH_TOKEN).toBeUndefined();
    expect(env).toMatchObject({ DISABLE_AUTOUPDATER: '1', RALPH_LOOP: '7', CLAUDE_CONFIG_DIR: fake.configDir });
    expect(JSON.stringify(fake.calls())).not.toContain('sk-ant-fake-test-key');
  });

  it('FAKE_CLAUDE_SEED + FAKE_CLAUDE_NOW make the output byte-identical across runs', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'fake-claude-seed-'));
    try {
      const outputs = [];
      for (let i = 0; i < 2; i++) {
        const fake = make({ calls: [{ steps: [{ tool: 'Bash', input: { command: 'ls' }, stdout: 'a' }, { text: 'ok' }] }] }, { seed: 'abc', now: '2026-11-30T03:44:58Z' });
        const run = await fake.run(['-p', 'x', '--output-format', 'stream-json', '--verbose', '--session-id', '11111111-2222-4333-8444-555555555555'], { cwd: shared });
        outputs.push(run.stdout.replace(/"messaging_socket_path":"[^"]*"|"memory_paths":\{[^}]*\}|"duration_ms":\d+/g, ''));
      }
      expect(outputs[0]).toBe(outputs[1]);
      expect(outputs[0]).toContain('"timestamp":"2026-11-30T03:44:58');
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  it('concurrent calls each get their own index', async () => {
    const fake = make({ calls: [{ resultText: 'a' }, { resultText: 'b' }, { resultText: 'c' }, { resultText: 'd' }], onExhausted: 'error' });
    const runs = await Promise.all(['1', '2', '3', '4'].map((p) => fake.run(['-p', p])));
    expect(runs.map((r) => r.stdout).sort()).toEqual(['a\n', 'b\n', 'c\n', 'd\n']);
    expect(fake.calls().map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it('"replay" plays a real recording back verbatim', async () => {
    const fake = make({ calls: [{ replay: 'e429oauth_sj' }, { replay: 'badflag' }] });
    const rec = replayRecording('e429oauth_sj');
    expect(await fake.run(['-p', 'x'])).toMatchObject({ stdout: rec.stdout, code: rec.rc });
    expect(await fake.run(['-p', 'x'])).toMatchObject({ stdout: '', stderr: "error: unknown option '--bogus-flag'\n", code: 1 });
  });

  it('reads the scenario inline from FAKE_CLAUDE_SCENARIO_JSON', async () => {
    const fake = make({});
    const cwd = join(fake.root, 'p');
    mkdirSync(cwd);
    const run = await fake.run(['-p', 'x'], { cwd, env: { FAKE_CLAUDE_SCENARIO: undefined, FAKE_CLAUDE_SCENARIO_JSON: '{"calls":[{"resultText":"inline"}]}' } });
    expect(run.stdout).toBe('inline\n');
  });
});
