// Session continuity and failed agent runs, end to end with the fake claude: --resume of the
// previous session, --no-continue, expiry, one fresh retry for an unknown session; timeouts,
// SIGTERM-ignoring agents, cut-off streams, garbage and is_error runs.

import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning } from '../../helpers/process-state.js';
import { loopProject, FAST_LOOP_RC, type LoopProject } from '../../helpers/loop-harness.js';
import type { FakeScenario } from '../../helpers/fake-claude.js';

const work = (n: number) => ({ writeFiles: { [`f${n}.txt`]: String(n) }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
const OPEN_PLAN = { '.ralph/fix_plan.md': '- [ ] keep going\n' };

let current: LoopProject | undefined;
afterEach(() => {
  current?.cleanup();
  current = undefined;
});

function setup(scenario: FakeScenario, files: Record<string, string> = OPEN_PLAN): LoopProject {
  current = loopProject(scenario, { files });
  return current;
}

const argAfter = (argv: string[], flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);

describe('sessions', () => {
  it('resumes loop 1 session in loop 2, never with --continue', async () => {
    const p = setup({ calls: [work(1), work(2)] });
    await p.run({ MAX_LOOPS: 2 });
    const [first, second] = p.fake.runs();
    expect(argAfter(first!.argv, '--resume')).toBeUndefined();
    expect(first!.sessionId).toBeTruthy();
    expect(argAfter(second!.argv, '--resume')).toBe(first!.sessionId);
    expect(second!.argv).not.toContain('--continue');
  });

  it('--no-continue never passes --resume', async () => {
    const p = setup({ calls: [work(1), work(2)] });
    await p.run({ MAX_LOOPS: 2, SESSION_CONTINUITY: false });
    for (const run of p.fake.runs()) expect(run.argv).not.toContain('--resume');
  });

  it('ignores a session file older than the expiry', async () => {
    const p = setup({ calls: [work(1)] });
    const file = p.project.path('.ralph/.claude_session_id');
    writeFileSync(file, JSON.stringify({ session_id: '0be36961-1027-4798-ad92-cea55f3781b6', timestamp: 'x' }));
    const old = (p.clock.now() - 30 * 3_600_000) / 1000;
    utimesSync(file, old, old);
    await p.run({ MAX_LOOPS: 1 });
    expect(p.fake.runs()[0]!.argv).not.toContain('--resume');
  });

  it('retries once with a fresh session when the CLI no longer knows the session', async () => {
    const p = setup({ calls: [work(1), work(2)] });
    const file = p.project.path('.ralph/.claude_session_id');
    writeFileSync(file, JSON.stringify({ session_id: '11111111-2222-4333-8444-555555555555', timestamp: 'x' }));
    utimesSync(file, p.clock.now() / 1000, p.clock.now() / 1000);
    const result = await p.run({ MAX_LOOPS: 1 });
    const runs = p.fake.calls().filter((c) => c.argv.includes('-p'));
    expect(runs).toHaveLength(2);
    expect(argAfter(runs[0]!.argv, '--resume')).toBe('11111111-2222-4333-8444-555555555555');
    expect(runs[1]!.argv).not.toContain('--resume');
    expect(result.exitCode).toBe(3);
    const history = p.readJson('.ralph/.ralph_session_history') as Array<{ reason: string }>;
    expect(history.map((h) => h.reason)).toContain('session_not_found');
  });

  it('a session id the agent writes into .ralph/ mid-run is never resumed: the loop resumes the one it saved', async () => {
    // Loop 2 forges .claude_session_id and prints nothing (no session reported), so ralph saves none
    // after it: a loop that read the file back would resume the forged session in loop 3.
    const forged = '99999999-8888-4777-8666-555555555555';
    const p = setup({
      calls: [work(1), { writeFiles: { '.ralph/.claude_session_id': JSON.stringify({ session_id: forged, timestamp: 'x' }) }, garbage: 'emptyExit0' }, work(3)],
    });
    await p.run({ MAX_LOOPS: 3 });
    const [first, , third] = p.fake.runs();
    expect(first!.sessionId).toBeTruthy();
    expect(argAfter(third!.argv, '--resume')).toBe(first!.sessionId);
  });
});

describe('failed runs', () => {
  it('kills a hanging agent at the timeout and goes on', async () => {
    const p = setup({ calls: [{ hang: 'afterInit' }, work(2)] });
    writeFileSync(p.project.path('.ralphrc'), `${FAST_LOOP_RC}CLAUDE_TIMEOUT_SECONDS=1\n`);
    const result = await p.run({ MAX_LOOPS: 2 });
    expect(result.exitCode).toBe(3);
    const [hung] = p.fake.calls().filter((c) => c.argv.includes('-p'));
    expect(isProcessRunning(hung!.pid)).toBe(false);
    expect(result.logs.join('\n')).toMatch(/timed out/);
    const metrics = readMetrics(p);
    expect(metrics[0]).toMatchObject({ loop: 1, success: false, outcome: 'timeout' });
    expect(metrics[1]).toMatchObject({ loop: 2, success: true });
  });

  it('uses SIGKILL for an agent that ignores SIGTERM, and leaves no process of the run behind', async () => {
    const p = setup({ calls: [{ hang: 'afterInit', ignoreSigterm: true, spawnChild: true }] });
    const running = p.run({ MAX_LOOPS: 1 });
    // Stopped once it hangs with its child started (on a loaded machine a short agent timeout
    // could fire before the fake has read its scenario, which would not ignore SIGTERM yet).
    while (!p.fake.calls().some((c) => c.childPid)) await new Promise((resolve) => setTimeout(resolve, 20));
    p.signals.emit('SIGTERM', 'SIGTERM');
    await running;
    const [call] = p.fake.calls().filter((c) => c.argv.includes('-p'));
    expect(call!.sigtermIgnored).toBe(true);
    expect(isProcessRunning(call!.pid)).toBe(false);
    expect(call!.childPid).toBeTruthy();
    expect(isProcessRunning(call!.childPid!)).toBe(false);
  });

  it('treats a cut-off stream, garbage and is_error results as failed loops and goes on', async () => {
    const p = setup({
      calls: [
        { steps: [{ text: 'working' }], crash: { afterLines: 2, exitCode: 139 } },
        // A stray non-JSON line in an otherwise good stream is tolerated (contract rule 14).
        { ...work(2), garbage: 'nonJson' },
        { garbage: 'truncatedJsonLine' },
        work(4),
        { isError: true, exitCode: 0, resultText: 'Something broke internally' },
        work(6),
      ],
    });
    const result = await p.run({ MAX_LOOPS: 6 });
    expect(result.exitCode).toBe(3);
    expect(p.fake.runs()).toHaveLength(6);
    expect(readMetrics(p).map((m) => m.success)).toEqual([false, true, false, true, false, true]);
  });
});

function readMetrics(p: LoopProject): Array<Record<string, unknown>> {
  const text = readFileSync(p.project.path('.ralph/logs/metrics.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
