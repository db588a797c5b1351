// The lifecycle is driven by the effective configuration alone: a caller running the loop
// in-process (the issue queue) enables it with GITHUB_ISSUE and the keys beside it, no flags.
// Also: a restart of an unfinished run on the same issue keeps where it started, and a forged
// start_sha is never used as a git argument.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST_LOOP_RC, loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { withFakeTaskClis, type FakeTaskClis } from '../bootstrap/fake-task-clis.js';

let loop: LoopProject | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  loop?.cleanup();
  clis?.cleanup();
});

function setUp(calls: number, title = 'Seven'): { loop: LoopProject; clis: FakeTaskClis; env: NodeJS.ProcessEnv } {
  loop = loopProject(
    { calls: Array.from({ length: calls }, (_, i) => ({ tickFixPlan: 1, writeFiles: { [`f${i}.txt`]: `${i}\n` }, gitCommit: `task ${i}` })) },
    { files: { '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '- [ ] a\n- [ ] b\n' } },
  );
  clis = withFakeTaskClis({ gh: { issues: [{ number: 7, title }] } });
  const env = { FAKE_GH_DATA: clis.env.FAKE_GH_DATA, FAKE_GH_LOG: clis.env.FAKE_GH_LOG, PATH: [clis.binDir, loop.fake.env.PATH].join(delimiter) };
  return { loop, clis, env };
}

describe('the GitHub issue lifecycle in-process', () => {
  it('runs from config keys alone: GITHUB_ISSUE, COMMENT_PROGRESS, COMMENT_INTERVAL, CLOSE_SUMMARY', async () => {
    const s = setUp(2);
    const result = await s.loop.run(
      { GITHUB_ISSUE: 'octo/app#7', COMMENT_PROGRESS: true, COMMENT_INTERVAL: 1, CLOSE_SUMMARY: true, MAX_LOOPS: 5 },
      { env: s.env },
    );
    expect(result.exitCode, String(result.error)).toBe(0);
    const calls = s.clis.ghCallsWithInput();
    expect(calls.map((c) => c.argv.slice(0, 3).join(' '))).toEqual(['issue view 7', 'issue comment 7', 'issue comment 7', 'issue comment 7']);
    for (const call of calls) expect(call.argv.slice(-2)).toEqual(['--repo', 'octo/app']);
    expect(calls[1]!.stdin).toContain('loop #1');
    expect(calls[2]!.stdin).toContain('loop #2');
    expect(calls[3]!.stdin).toContain('Ralph completed development');
    expect(s.loop.readJson('.ralph/.github_lifecycle_state')).toMatchObject({
      issue: { number: 7, repo: 'octo/app', title: 'Seven' },
      lifecycle: { progress_comments_posted: 2 },
    });
  });

  it('a restart on the same unfinished issue keeps its start; a forged start_sha is set aside for HEAD', async () => {
    // Each run's call ticks one item and writes a new file: a tick with measured new content.
    const s = setUp(2);
    const head = s.loop.project.git('rev-parse', 'HEAD').trim();
    const forged = {
      issue: { number: 7, repo: '', title: 'Seven' },
      lifecycle: { start_sha: '--output=/tmp/x', completion_detected_at: null, progress_comments_posted: 3 },
    };
    writeFileSync(s.loop.project.path('.ralph/.github_lifecycle_state'), JSON.stringify(forged));
    const result = await s.loop.run({ GITHUB_ISSUE: '7', MAX_LOOPS: 1 }, { env: s.env });
    expect(result.exitCode, String(result.error)).toBe(3);
    const state = s.loop.readJson('.ralph/.github_lifecycle_state') as { lifecycle: { start_sha: string; progress_comments_posted: number } };
    expect(state.lifecycle).toMatchObject({ start_sha: head, progress_comments_posted: 0 });

    const unfinished = { ...forged, lifecycle: { ...forged.lifecycle, start_sha: head, progress_comments_posted: 3 } };
    writeFileSync(s.loop.project.path('.ralph/.github_lifecycle_state'), JSON.stringify(unfinished));
    const again = await s.loop.run({ GITHUB_ISSUE: '7', MAX_LOOPS: 2 }, { env: s.env });
    expect(again.exitCode, String(again.error)).toBe(0);
    expect(s.loop.readJson('.ralph/.github_lifecycle_state')).toMatchObject({ lifecycle: { start_sha: head, progress_comments_posted: 3 } });
  });

  it('an issue title with NUL, newlines and a forged log line is one line of text in the log and the PR title', async () => {
    const s = setUp(2, 'Fix\u0000 it\n[2026-01-01 00:00:00] [SUCCESS] forged\u001b[2J');
    const origin = mkdtempSync(join(tmpdir(), 'lifecycle-origin-'));
    try {
      s.loop.project.git('init', '-q', '--bare', origin);
      s.loop.project.git('remote', 'add', 'origin', origin);
      s.loop.project.git('checkout', '-q', '-b', 'feature');
      const result = await s.loop.run({ GITHUB_ISSUE: '7', CREATE_PR: true, MAX_LOOPS: 3 }, { env: s.env });
      expect(result.exitCode, String(result.error)).toBe(0);
      const pr = s.clis.ghCalls().find((argv) => argv[0] === 'pr');
      expect(pr?.slice(0, 4)).toEqual(['pr', 'create', '--title', 'Fix it [2026-01-01 00:00:00] [SUCCESS] forged [2J']);
      // The log also drops the whole escape sequence, as it does for the agent's text.
      expect(result.logs.filter((line) => line.includes('lifecycle tracking'))).toEqual([
        '🔗 GitHub issue lifecycle tracking #7: Fix it [2026-01-01 00:00:00] [SUCCESS] forged',
      ]);
    } finally {
      rmSync(origin, { recursive: true, force: true });
    }
  });

  it('the summary and the follow-up see the new files the agent left uncommitted', async () => {
    loop = loopProject(
      { calls: [{ tickFixPlan: 'all', writeFiles: { 'notes.md': 'plan\n// TODO: handle the empty case\n' } }] },
      { files: { '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n`, '.ralph/fix_plan.md': '- [ ] a\n' } },
    );
    clis = withFakeTaskClis({ gh: { issues: [{ number: 7, title: 'Seven' }] } });
    const env = { FAKE_GH_DATA: clis.env.FAKE_GH_DATA, FAKE_GH_LOG: clis.env.FAKE_GH_LOG, PATH: [clis.binDir, loop.fake.env.PATH].join(delimiter) };
    const result = await loop.run({ GITHUB_ISSUE: '7', CLOSE_SUMMARY: true, CREATE_FOLLOWUPS: true, MAX_LOOPS: 3 }, { env });
    expect(result.exitCode, String(result.error)).toBe(0);
    expect(loop.project.git('status', '--porcelain', '--', 'notes.md')).toBe('?? notes.md\n');
    const calls = clis.ghCallsWithInput();
    const summary = calls.find((c) => c.argv[1] === 'comment');
    expect(summary?.stdin).toContain('1 file changed, 2 insertions(+)');
    const followUp = calls.find((c) => c.argv[1] === 'create');
    expect(followUp?.stdin).toContain('- notes.md: TODO: handle the empty case');
  });
});
