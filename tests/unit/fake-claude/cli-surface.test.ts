// The fake's command-line surface: version, help, interactive refusal, and every error the
// real CLI prints before a run (stderr text, exit 1, empty stdout) compared with recordings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayRecording, withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';

let fake: FakeClaude;
let project: string;

beforeAll(() => {
  fake = withFakeClaude({});
  project = join(fake.root, 'project');
  mkdirSync(project);
  // s5 / sid_resume need an existing session on disk under this id
  const slugDir = join(fake.configDir, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(slugDir, { recursive: true });
  writeFileSync(join(slugDir, '0a42b4cc-bff1-4f17-8a30-5513b0c655c6.jsonl'), '{"type":"fake_result","total_cost_usd":0.009}\n');
});
afterAll(() => fake.cleanup());

describe('fake claude CLI surface', () => {
  it('--version and -v print "<version> (Claude Code)"', async () => {
    for (const flag of ['--version', '-v']) {
      const run = await fake.run([flag]);
      expect(run).toMatchObject({ stdout: '2.1.332 (Claude Code)\n', code: 0 });
    }
  });

  it('--version follows the profile', async () => {
    const run = await fake.run(['--version'], { env: { FAKE_CLAUDE_PROFILE: '1.0.30' } });
    expect(run.stdout).toBe('1.0.30 (Claude Code)\n');
  });

  it('--help lists the headless flags and exits 0', async () => {
    const run = await fake.run(['--help']);
    expect(run.code).toBe(0);
    for (const flag of ['--print', '--output-format', '--allowedTools', '--resume', '--permission-mode', '--max-budget-usd']) expect(run.stdout).toContain(flag);
    expect(run.stdout).not.toContain('--max-turns'); // hidden from help in 2.1.332
  });

  it('without -p it refuses loudly: interactive mode is not supported (exit 2)', async () => {
    const run = await fake.run(['say hi']);
    expect(run).toMatchObject({ stdout: '', stderr: 'FAKE: interactive mode not supported\n', code: 2 });
  });

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
      const run = await fake.run(args, { cwd: project, env, input });
      expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout: rec.stdout, stderr: rec.stderr, code: rec.rc });
    });
  }

  it('an unknown flag close to a real one gets commander\'s "Did you mean" hint', async () => {
    const run = await fake.run(['-p', 'say hi', '--verbos']);
    expect(run.stderr).toBe("error: unknown option '--verbos'\n(Did you mean --verbose?)\n");
    expect(run.code).toBe(1);
  });

  it('variadic flags stop at the next option, at --, or take the prompt when it comes first', async () => {
    for (const args of [['-p', 'say hi', '--allowedTools', 'Read', 'Edit'], ['-p', '--allowedTools', 'Read', 'Edit', '--', 'say hi'], ['--allowedTools', 'Read', 'Edit', '-p', 'say hi']]) {
      const run = await fake.run(args, { cwd: project });
      expect(run).toMatchObject({ stdout: 'Hello from the mock. All done.\n', code: 0 });
    }
    const calls = fake.runs().slice(-3);
    expect(calls.map((c) => c.prompt)).toEqual(['say hi', 'say hi', 'say hi']);
  });

  it('1.0.30 profile does not know the kebab-case alias', async () => {
    const run = await fake.run(['-p', 'say hi', '--allowed-tools', 'Read'], { env: { FAKE_CLAUDE_PROFILE: '1.0.30' } });
    expect(run.stderr).toContain("error: unknown option '--allowed-tools'");
    expect(run.code).toBe(1);
  });

  it('IS_SANDBOX=1 lifts the root refusal', async () => {
    const run = await fake.run(['-p', 'say hi', '--dangerously-skip-permissions'], { cwd: project, env: { FAKE_CLAUDE_AS_ROOT: '1', IS_SANDBOX: '1' } });
    expect(run).toMatchObject({ stdout: 'Hello from the mock. All done.\n', code: 0 });
  });
});
