// State files the agent can write, holding control characters inside JSON strings (raw, as JSON
// forbids them): `ralph --status --json`, `ralph --status`, `ralph --circuit-status` and
// `ralph-monitor --once` read them, print the values (escaped in JSON, stripped on a terminal)
// and never fail with "internal error".

import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

// A window title, a screen clear, SOH, BEL and a carriage return that would overwrite the line.
const NASTY = 'a\x1b]0;ralph: ALL TESTS PASSED\x07b\x01\x1b[2J\rc';
// What a terminal view shows of it: the sequences and controls gone (a line's CR as a space, or gone).
const SHOWN = 'ab c';

function hostileProject(): TmpProject {
  const p = tmpProject(ralphProjectTree(), { git: true });
  cleanups.push(() => p.cleanup());
  // Written by hand with the raw characters, as an agent (or a careless writer) would.
  writeFileSync(
    p.path('.ralph/status.json'),
    `{"timestamp":"2026-12-06T08:00:00Z","loop_count":3,"calls_made_this_hour":1,"max_calls_per_hour":100,"last_action":"${NASTY}","status":"running","exit_reason":"x${NASTY}"}`,
  );
  writeFileSync(
    p.path('.ralph/progress.json'),
    `{\n  "status": "executing",\n  "indicator": "-",\n  "elapsed_seconds": 3,\n  "last_output": "${NASTY}",\n  "timestamp": "2026-12-06 08:00:00"\n}\n`,
  );
  writeFileSync(
    p.path('.ralph/.circuit_breaker_state'),
    `{"state":"OPEN","last_change":"2026-12-06T08:00:00Z","consecutive_no_progress":3,"consecutive_same_error":0,"last_progress_loop":1,"total_opens":1,"reason":"${NASTY}","current_loop":4}`,
  );
  return p;
}

describe('control characters inside JSON strings of state files', () => {
  it('ralph --status --json reads every file and escapes the values', async () => {
    const p = hostileProject();
    const r = await runCli('ralph', ['--status', '--json'], { cwd: p.dir });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout) as { last_action: string; status_file: { exit_reason: string }; progress: { last_output: string } };
    expect(status.last_action).toBe(NASTY);
    expect(status.status_file.exit_reason).toBe(`x${NASTY}`);
    expect(status.progress.last_output).toBe(NASTY);
    expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
  });

  it('ralph-monitor --once shows the run with the control characters stripped', async () => {
    const p = hostileProject();
    const r = await runCli('ralph-monitor', ['--once'], { cwd: p.dir });
    expect(r.stderr).not.toContain('internal error');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Loop #3  Status: running  (${SHOWN})`);
    expect(r.stdout).toContain(`> ${SHOWN}`);
    expect(r.stdout).toContain(`Reason: ${SHOWN}`);
    expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });

  it('ralph --status and --circuit-status print without control characters', async () => {
    const p = hostileProject();
    for (const args of [['--status'], ['--circuit-status']]) {
      const r = await runCli('ralph', args, { cwd: p.dir });
      expect(r.stderr, args[0]).not.toContain('internal error');
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
      expect(r.stdout + r.stderr, args[0]).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    }
  });
});
