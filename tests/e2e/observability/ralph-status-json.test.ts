// The real `bin/ralph` printing JSON: `--status --json --jq .status` prints the value alone,
// a bad filter is a clear error with exit 1, and --jq works for every JSON-printing action.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';

const root = mkdtempSync(join(tmpdir(), 'ralph-status-e2e-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function haltedProject(): string {
  const dir = mkdtempSync(join(root, 'p-'));
  cpSync(new URL('../../fixtures/bash-state/halted', import.meta.url), join(dir, '.ralph'), { recursive: true });
  return dir;
}

describe('ralph JSON output', () => {
  it('--status --json --jq .status prints the status value alone', async () => {
    const r = await runCli('ralph', ['--status', '--json', '--jq', '.status'], { cwd: haltedProject() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('halted\n');
  });

  it('--status --json prints the whole state', async () => {
    const r = await runCli('ralph', ['--status', '--json'], { cwd: haltedProject() });
    const state = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(state)).toEqual(
      expect.arrayContaining([
        'status',
        'circuit_breaker',
        'rate_window',
        'usage_limit_wait',
        'session',
        'claude_session',
        'budgets',
        'last_analysis',
        'running',
      ]),
    );
    expect(state.circuit_breaker).toMatchObject({ state: 'OPEN' });
  });

  it('a bad filter fails with a message and exit 1', async () => {
    const r = await runCli('ralph', ['--status', '--json', '--jq', '.['], { cwd: haltedProject() });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("Error: Invalid --jq filter '.[': syntax error");
    expect(r.stderr).toContain('hint:');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('--jq implies --json and also filters --config', async () => {
    const status = await runCli('ralph', ['--status', '--jq', '.circuit_breaker.total_opens'], { cwd: haltedProject() });
    expect(status.stdout).toBe('1\n');
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }));
    try {
      const config = await runCli('ralph', ['--config', '--jq', '.MAX_CALLS_PER_HOUR.value', '--calls', '42'], { cwd: p.dir, env: { HOME: p.dir } });
      expect(config.stdout).toBe('42\n');
    } finally {
      p.cleanup();
    }
  });

  it('--jq without a JSON-printing action is a flag error', async () => {
    const r = await runCli('ralph', ['--jq', '.status'], { cwd: haltedProject() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--jq filters JSON output: use it with --status, --config or --rollback');
  });

  it('--status without --json stays human', async () => {
    const r = await runCli('ralph', ['--status'], { cwd: haltedProject() });
    expect(r.stdout.startsWith('Current Status:\n{\n')).toBe(true);
  });
});
