// Guard state the agent can write, set to values ralph could never have written: a negative
// call count, a window hour in the future, a usage-limit wait until 2099, a breaker opened in
// 2099. ralph's loop resets each with a warning naming the file and carries on with
// the guard intact.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

function project(): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
  cleanups.push(() => p.cleanup());
  return p;
}

/** An agent that does real work every call and never claims to be done. */
function workingAgent(): FakeClaude {
  const f = withFakeClaude({ defaults: { writeFiles: { 'out.txt': 'work' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } } });
  cleanups.push(() => f.cleanup());
  return f;
}

/**
 * One loop (`--max-loops 1`), in the test's process (tests/helpers/ralph-in-process.ts): a run
 * that would wait fails the test at its timeout, which stops the loop.
 */
function runOneLoop(p: TmpProject, f: FakeClaude): Promise<CliResult> {
  return runRalphInProcess(p.dir, ['--max-loops', '1'], f.env);
}

const read = (p: TmpProject, name: string) => readFileSync(p.path(`.ralph/${name}`), 'utf8').trim();
const localHourKey = (d = new Date()) =>
  `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}${String(d.getHours()).padStart(2, '0')}`;

describe('guard values the agent could have written are range-checked', () => {
  it('a negative .call_count is reset to 0 with a warning: the call is "Call 1/100"', async () => {
    const p = project();
    const f = workingAgent();
    writeFileSync(p.path('.ralph/.call_count'), '-1000000\n');
    writeFileSync(p.path('.ralph/.last_reset'), `${localHourKey()}\n`);
    const r = await runOneLoop(p, f);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/WARN.*State file \.call_count holds a value ralph could not have written: -1000000 is below 0; reset to 0/);
    expect(r.stderr).toContain('(Call 1/100)');
    expect(r.stderr).not.toContain('-999999');
    expect(f.runs()).toHaveLength(1);
    expect(read(p, '.call_count')).toBe('1');
  });

  it("a .last_reset in the future does not start a fresh window: the hour's count is kept", async () => {
    const p = project();
    const f = workingAgent();
    writeFileSync(p.path('.ralph/.call_count'), '7\n');
    writeFileSync(p.path('.ralph/.last_reset'), '2099010100\n');
    const r = await runOneLoop(p, f);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/WARN.*State file \.last_reset holds a value ralph could not have written: .*2099.* is in the future; reset to the current hour/);
    expect(r.stderr).toContain('(Call 8/100)');
    expect(read(p, '.call_count')).toBe('8');
    expect(read(p, '.last_reset')).not.toBe('2099010100');
  });

  it('a .usage_limit_wait until 2099 is not waited for: the run proceeds with a warning and drops it', async () => {
    const p = project();
    const f = workingAgent();
    const resumeAt = Date.parse('2099-01-01T00:00:00Z');
    writeFileSync(
      p.path('.ralph/.usage_limit_wait'),
      JSON.stringify({ resume_at: '2099-01-01T00:00:00+00:00', resume_at_ms: resumeAt, reason: 'limit', source: 'stated', detected_at: '' }),
    );
    const r = await runOneLoop(p, f);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/WARN.*State file \.usage_limit_wait holds a value ralph could not have written: resume_at .*2099.* longest wait ralph chooses/);
    expect(f.runs()).toHaveLength(1);
    expect(existsSync(p.path('.ralph/.usage_limit_wait'))).toBe(false);
  });

  it('--status --json leaves out the 2099 wait and says why, without touching the file', async () => {
    const p = project();
    const text = JSON.stringify({ resume_at: '2099-01-01T00:00:00+00:00', resume_at_ms: Date.parse('2099-01-01T00:00:00Z'), reason: 'limit' });
    writeFileSync(p.path('.ralph/.usage_limit_wait'), text);
    writeFileSync(p.path('.ralph/.call_count'), '-5\n');
    const r = await runCli('ralph', ['--status', '--json'], { cwd: p.dir });
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as { usage_limit_wait: unknown; rate_window: { calls_this_hour: number }; warnings: string[] };
    expect(status.usage_limit_wait).toBeNull();
    expect(status.rate_window.calls_this_hour).toBe(0);
    expect(status.warnings).toEqual([expect.stringContaining('State file .call_count'), expect.stringContaining('State file .usage_limit_wait')]);
    expect(read(p, '.usage_limit_wait')).toBe(text);
  });

  it('--circuit-status on a breaker opened in 2099 shows a cooldown from now, not from 2099', async () => {
    const p = project();
    writeFileSync(
      p.path('.ralph/.circuit_breaker_state'),
      JSON.stringify({
        state: 'OPEN',
        last_change: '2099-01-01T00:00:00+00:00',
        opened_at: '2099-01-01T00:00:00+00:00',
        consecutive_no_progress: 3,
        consecutive_same_error: 0,
        consecutive_permission_denials: 0,
        last_progress_loop: 0,
        total_opens: 1,
        reason: 'stuck',
        current_loop: 3,
      }),
    );
    const r = await runCli('ralph', ['--circuit-status'], { cwd: p.dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /WARN.*State file \.circuit_breaker_state holds a value ralph could not have written: .*opened_at 2099-01-01T00:00:00\.000Z is in the future; reset to now/,
    );
    // CB_COOLDOWN_MINUTES defaults to 30: the cooldown now ends within 30 minutes.
    expect(r.stdout).toMatch(/Cooldown ends: +\d\d:\d\d:\d\d \(in (?:29m(?: \d+s)?|30m)\)/);
    const saved = JSON.parse(read(p, '.circuit_breaker_state')) as { opened_at: string };
    expect(Date.parse(saved.opened_at)).toBeLessThanOrEqual(Date.now());
  });
});
