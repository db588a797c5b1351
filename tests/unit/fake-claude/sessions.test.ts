// Sessions in the fake: transcripts under CLAUDE_CONFIG_DIR, --resume keeping the id with a
// cumulative cost (recordings s1–s4), forks, the not-found error and forced expiry.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayRecording, withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';

type Result = { session_id: string; total_cost_usd: number; modelUsage: Record<string, { inputTokens: number }> };

let fake: FakeClaude;
let project: string;

beforeEach(() => {
  fake = withFakeClaude({ calls: [{}, {}, {}, { resume: 'notFound' }] });
  project = join(fake.root, 'project');
  mkdirSync(project);
});
afterEach(() => fake.cleanup());

async function runJson(args: string[], cwd = project): Promise<Result> {
  const run = await fake.run(['-p', 'say hi', '--output-format', 'json', ...args], { cwd });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Result;
}

describe('fake claude sessions', () => {
  it('writes the transcript to <config>/projects/<slug>/<id>.jsonl', async () => {
    const first = await runJson([]);
    const path = join(fake.configDir, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), `${first.session_id}.jsonl`);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('say hi');
  });

  it('--resume keeps the id and the cost is cumulative, as in recordings s1 → s2 → s3', async () => {
    const expected = ['s1', 's2', 's3'].map((label) => (JSON.parse(replayRecording(label).stdout) as Result).total_cost_usd);
    const first = await runJson([]);
    const second = await runJson(['--resume', first.session_id]);
    const elsewhere = join(fake.root, 'elsewhere');
    mkdirSync(elsewhere);
    const third = await runJson(['--resume', first.session_id], elsewhere); // another cwd works too
    expect([first.total_cost_usd, second.total_cost_usd, third.total_cost_usd]).toEqual(expected);
    expect(new Set([first.session_id, second.session_id, third.session_id]).size).toBe(1);
    expect(third.modelUsage['claude-opus-5-5']!.inputTokens).toBe(3600);
    expect(fake.runs().map((c) => c.resumedFrom)).toEqual([null, first.session_id, first.session_id]);
  });

  it('--fork-session mints a new id but carries the spent cost (recording s4)', async () => {
    const first = await runJson([]);
    const fork = await runJson(['--resume', first.session_id, '--fork-session']);
    expect(fork.session_id).not.toBe(first.session_id);
    expect(fork.total_cost_usd).toBe(0.018000000000000002);
  });

  it('--resume of an unknown id: stderr "No conversation found…", exit 1, no stdout', async () => {
    const rec = replayRecording('resume_unknown');
    const run = await fake.run(['-p', 'say hi', '--output-format', 'json', '--resume', '00000000-0000-4000-8000-000000000000'], { cwd: project });
    expect({ stdout: run.stdout, stderr: run.stderr, code: run.code }).toEqual({ stdout: '', stderr: rec.stderr, code: 1 });
  });

  it('"resume": "notFound" forces the not-found error for a session that exists', async () => {
    const first = await runJson([]);
    await runJson(['--resume', first.session_id]);
    await runJson(['--resume', first.session_id]);
    const run = await fake.run(['-p', 'say hi', '--resume', first.session_id], { cwd: project });
    expect(run).toMatchObject({ stdout: '', stderr: `No conversation found with session ID: ${first.session_id}\n`, code: 1 });
  });

  it('--session-id pre-assigns the id; --continue picks the newest session of the cwd', async () => {
    const id = '11111111-2222-4333-8444-555555555555';
    const first = await runJson(['--session-id', id]);
    expect(first.session_id).toBe(id);
    const cont = await runJson(['--continue']);
    expect(cont.session_id).toBe(id);
    expect(cont.total_cost_usd).toBe(0.018000000000000002);
  });

  it('profile 1.0.30 mints a new id on every resume (cc#4926)', async () => {
    fake.setScenario({ defaults: { profile: '1.0.30' }, calls: [{}] });
    const first = await runJson([]);
    const resumed = await runJson(['--resume', first.session_id]);
    expect(resumed.session_id).not.toBe(first.session_id);
    expect(Object.keys(resumed).sort()).toEqual(['duration_api_ms', 'duration_ms', 'is_error', 'num_turns', 'result', 'session_id', 'subtype', 'total_cost_usd', 'type', 'usage']);
  });

  it('--no-session-persistence writes nothing, so the id cannot be resumed', async () => {
    const first = await runJson(['--no-session-persistence']);
    const run = await fake.run(['-p', 'say hi', '--resume', first.session_id], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`No conversation found with session ID: ${first.session_id}\n`);
  });
});
