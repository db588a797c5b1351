// The real `bin/ralph` as a user runs it: flags, validation messages, --status on Bash-written
// state, --config precedence, Ctrl-C during an agent call.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../lib/config/schema.js';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { isProcessRunning } from '../helpers/process-state.js';
import { holdLockAsRalph } from '../helpers/ralph-lock-holder.js';
import { binPath, runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

function project(files: Record<string, string> = {}, git = true): TmpProject {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, ...files }), { git });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(scenario: unknown): FakeClaude {
  const f = withFakeClaude(scenario as never);
  cleanups.push(() => f.cleanup());
  return f;
}

describe('ralph command line', () => {
  it('--help lists the Bash tool flags with defaults', async () => {
    const r = await runCli('ralph', ['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--calls',
      '--prompt',
      '--status',
      '--monitor',
      '--verbose',
      '--live',
      '--timeout',
      '--reset-circuit',
      '--circuit-status',
      '--auto-reset-circuit',
      '--reset-session',
      '--dry-run',
      '--notify',
      '--backup',
      '--rollback',
      '--show-tool-args',
      '--output-format',
      '--allowed-tools',
      '--no-continue',
      '--session-expiry',
      '--max-loops',
      '--doctor',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    // Each default shown is the schema's (help text wraps, so whitespace is collapsed first).
    const help = r.stdout.replace(/\s+/g, ' ');
    const defaults = defaultConfig();
    for (const [flag, key] of [
      ['--calls NUM', 'MAX_CALLS_PER_HOUR'],
      ['--timeout MIN', 'CLAUDE_TIMEOUT_MINUTES'],
      ['--session-expiry HOURS', 'SESSION_EXPIRY_HOURS'],
      ['--comment-interval NUM', 'COMMENT_INTERVAL'],
      ['--output-format FMT', 'CLAUDE_OUTPUT_FORMAT'],
    ] as const) {
      expect(help).toMatch(new RegExp(`${flag} [^()]*\\(default: ${String(defaults[key])}\\)`));
    }
  });

  it('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const r = await runCli('ralph', ['--version']);
    expect(r.stdout.trim()).toBe(`ralph ${pkg.version}`);
  });

  it('rejects an unknown flag by name with exit 1', async () => {
    const r = await runCli('ralph', ['--bogus']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Unknown option: --bogus');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it.each([
    [['--montor'], 'Error: Unknown option: --montor (did you mean --monitor?)'],
    [['--max-loop', '3'], 'Error: Unknown option: --max-loop (did you mean --max-loops?)'],
    [['status'], 'Error: Unknown argument: status (ralph takes options only; did you mean --status?)'],
  ])('suggests the flag a typo was meant to be: ralph %j', async (args, message) => {
    const r = await runCli('ralph', args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('names an unknown one-letter flag without guessing a long one from it (-x is no typo of --jq)', async () => {
    const r = await runCli('ralph', ['-x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error: Unknown option: -x\nhint: run ralph --help for the list of options\n');
  });

  it('--help says in one line what ralph does', async () => {
    const r = await runCli('ralph', ['--help']);
    expect(r.stdout).toContain('Runs a coding agent on this project again and again, following .ralph/PROMPT.md');
  });

  it.each([
    [['--timeout', '0'], 'Error: --timeout: expected a whole number from 1 to 120, got "0"'],
    [['--timeout', '121'], 'Error: --timeout: expected a whole number from 1 to 120, got "121"'],
    [['--max-loops', '-1'], 'Error: --max-loops: expected a whole number from 0 to 1000000, got "-1"'],
    [['--max-cost', 'lots'], 'Error: --max-cost: expected a number from 0 to 1000000, got "lots"'],
    [['--output-format', 'xml'], "Error: --output-format must be 'json' or 'text'"],
    [['--session-expiry', 'x'], 'Error: --session-expiry: expected a whole number from 1 to 8760, got "x"'],
    [['--allowed-tools', 'Read,Hack'], "Error: Invalid tool in --allowed-tools: 'Hack'"],
    [['--calls', 'ten'], 'Error: --calls: expected a whole number from 1 to 100000, got "ten"'],
  ])('validates %j (a number in the words .ralphrc uses)', async (args, message) => {
    const r = await runCli('ralph', args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
  });

  it('takes 0 for --max-loops, --max-cost and --max-run-minutes: unlimited, as in .ralphrc', async () => {
    const p = project({ '.ralphrc': 'MAX_LOOPS=5\nMAX_COST_USD=2\n' });
    const r = await runCli('ralph', ['--config', '--json', '--max-loops', '0', '--max-cost', '0', '--max-run-minutes', '0'], {
      cwd: p.dir,
      env: { HOME: p.dir },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const config = JSON.parse(r.stdout);
    for (const key of ['MAX_LOOPS', 'MAX_COST_USD', 'MAX_RUN_MINUTES']) expect(config[key], key).toMatchObject({ value: 0, source: 'flag' });
  });

  it('--status prints a Bash-written status.json', async () => {
    const p = project();
    cpSync(new URL('../fixtures/bash-state/halted/status.json', import.meta.url), p.path('.ralph/status.json'));
    const r = await runCli('ralph', ['--status'], { cwd: p.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Current Status:');
    expect(r.stdout).toContain('"exit_reason": "stagnation_detected"');
    expect(r.stdout).toContain('"loop_count": 3');
  });

  it('--status says when the ralph that wrote a running status is gone', async () => {
    const p = project();
    const { spawnSync } = await import('node:child_process');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(p.path('.ralph/status.json'), JSON.stringify({ loop_count: 3, status: 'running', last_action: 'executing', pid: dead }));
    const r = await runCli('ralph', ['--status'], { cwd: p.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Note: the ralph process that wrote this (pid ${dead}) is no longer running`);
    writeFileSync(p.path('.ralph/status.json'), JSON.stringify({ loop_count: 3, status: 'running', pid: process.pid }));
    expect((await runCli('ralph', ['--status'], { cwd: p.dir })).stdout).not.toContain('Note:');
  });

  it('--status outside a Ralph project says so, as every other command does, and exits 1', async () => {
    const dir = tmpProject({}, { git: false });
    cleanups.push(() => dir.cleanup());
    for (const args of [['--status'], ['--status', '--json']]) {
      const r = await runCli('ralph', args, { cwd: dir.dir });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toBe('Error: This directory is not a Ralph project (no .ralph/ folder)\nhint: cd into a Ralph project, or run ralph-enable here\n');
      expect(r.stdout).toBe('');
    }
  });

  it('in a subfolder of a project, each command names the project above to cd into, not ralph-enable here', async () => {
    const p = project();
    mkdirSync(p.path('src'));
    const cd = `cd ${p.dir}`;
    for (const [command, args] of [
      ['ralph', []],
      ['ralph', ['--status']],
      ['ralph', ['--circuit-status']],
      ['ralph-monitor', ['--once']],
    ] as const) {
      const r = await runCli(command, [...args], { cwd: p.path('src') });
      const what = [command, ...args].join(' ');
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(`hint: this folder is inside the Ralph project ${p.dir}: ${cd}, and run it there`);
      expect(r.stderr, what).not.toContain('run ralph-enable here');
    }
    const doctor = await runCli('ralph', ['--doctor'], { cwd: p.path('src') });
    expect(doctor.stdout).toContain(`[FAIL] project files: no .ralph/ directory here — fix: ${cd} (this folder is inside that Ralph project)`);
    expect(existsSync(p.path('src/.ralph'))).toBe(false);
  });

  it('--status into a reader that closed (ralph --status | head) ends quietly, without a stack trace', async () => {
    const p = project();
    writeFileSync(p.path('.ralph/status.json'), JSON.stringify({ loop_count: 3, status: 'completed', notes: 'x'.repeat(200_000) }));
    const child = spawn(process.execPath, [binPath('ralph'), '--status'], { cwd: p.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader is gone before ralph writes its first byte.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('--status without a status file says so and exits 0', async () => {
    const p = project();
    const r = await runCli('ralph', ['--status'], { cwd: p.dir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('No status file found. Ralph may not be running.');
  });

  it('--config shows flag > env > .ralphrc with the source of each value', async () => {
    const p = project({ '.ralphrc': 'MAX_CALLS_PER_HOUR=50\n' });
    const env = { MAX_CALLS_PER_HOUR: '70', HOME: p.dir };
    const withFlag = await runCli('ralph', ['--config', '--json', '--calls', '90'], { cwd: p.dir, env });
    expect(JSON.parse(withFlag.stdout).MAX_CALLS_PER_HOUR).toMatchObject({ value: 90, source: 'flag' });
    const withEnv = await runCli('ralph', ['--config', '--json'], { cwd: p.dir, env });
    expect(JSON.parse(withEnv.stdout).MAX_CALLS_PER_HOUR).toMatchObject({ value: 70, source: 'env' });
    const fromFile = await runCli('ralph', ['--config'], { cwd: p.dir, env: { HOME: p.dir, MAX_CALLS_PER_HOUR: '' } });
    expect(fromFile.stdout).toMatch(/MAX_CALLS_PER_HOUR\s*=\s*50\s.*\.ralphrc:1/);
  });

  it('refuses .ralphrc command substitution and reports invalid values together', async () => {
    const p = project({ '.ralphrc': 'X=$(touch pwned)\nMAX_CALLS_PER_HOUR=ten\nCLAUDE_TIMEOUT_MINUTES=999\n' });
    const r = await runCli('ralph', ['--config'], { cwd: p.dir, env: { HOME: p.dir } });
    expect(r.code).toBe(1);
    expect(existsSync(p.path('pwned'))).toBe(false);
    expect(r.stderr).toContain('MAX_CALLS_PER_HOUR');
    expect(r.stderr).toContain('CLAUDE_TIMEOUT_MINUTES');
    expect(r.stderr).toContain('.ralphrc:2');
    expect(r.stderr).toContain('.ralphrc:3');
  });

  it('points an old flat project to ralph-migrate and creates nothing', async () => {
    const p = tmpProject({ 'PROMPT.md': '# old', '@fix_plan.md': '- [ ] a' });
    cleanups.push(() => p.cleanup());
    const r = await runCli('ralph', [], { cwd: p.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ralph-migrate');
    expect(existsSync(p.path('.ralph'))).toBe(false);
  });

  it('explains a missing PROMPT.md without calling the agent', async () => {
    const p = tmpProject({ '.ralph/fix_plan.md': '- [ ] a' });
    cleanups.push(() => p.cleanup());
    const f = fake({ calls: [{ resultText: 'no' }] });
    const r = await runCli('ralph', [], { cwd: p.dir, env: f.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.ralph/PROMPT.md');
    expect(r.stderr).toContain('ralph-enable');
    expect(f.runs()).toHaveLength(0);
  });

  it('reports a missing Claude CLI with install options', async () => {
    const p = project();
    const r = await runCli('ralph', [], { cwd: p.dir, env: { PATH: '/nonexistent', CLAUDE_CODE_CMD: 'claude-does-not-exist' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CLAUDE CODE CLI NOT FOUND');
    expect(r.stderr).toContain('npm install -g @anthropic-ai/claude-code');
    // npx refuses to install without a terminal, so it is no fix to offer.
    expect(r.stderr).not.toContain('npx');
  });

  it('stops on Ctrl-C during an agent call: exit 130, status interrupted, no process left', async () => {
    const p = project();
    const f = fake({ calls: [{ hang: 'afterInit', spawnChild: true }] });
    let sent = false;
    const r = await runCli('ralph', [], {
      cwd: p.dir,
      env: f.env,
      onSpawn: (child) => {
        // Send SIGINT once the agent is running: its start record is in the call log.
        const timer = setInterval(() => {
          if (!sent && f.runs().length > 0 && existsSync(p.path('.ralph/live.log'))) {
            sent = true;
            clearInterval(timer);
            child.kill('SIGINT');
          }
        }, 50);
        child.on('exit', () => clearInterval(timer));
      },
    });
    expect(sent).toBe(true);
    expect(r.code).toBe(130);
    const status = JSON.parse(readFileSync(p.path('.ralph/status.json'), 'utf8'));
    expect(status).toMatchObject({ last_action: 'interrupted', status: 'stopped', exit_reason: 'interrupted' });
    const [call] = f.runs();
    for (const pid of [call!.pid, call!.childPid!]) expect(isProcessRunning(pid), `pid ${pid}`).toBe(false);
    const history = JSON.parse(readFileSync(p.path('.ralph/.ralph_session_history'), 'utf8')) as Array<{ reason: string }>;
    expect(history.at(-1)!.reason).toBe('manual_interrupt');
  });

  it('a second ralph in the same project refuses to start', async () => {
    const p = project();
    const holder = await holdLockAsRalph(p.path('.ralph/.ralph.lock'));
    cleanups.push(() => holder.stop());
    const f = fake({ calls: [{ resultText: 'x' }] });
    const r = await runCli('ralph', [], { cwd: p.dir, env: f.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Another ralph loop is already running in this project (pid ${holder.pid})`);
    expect(f.runs()).toHaveLength(0);
  });

  it('--parallel with another ralph at work says so first, not that the tree it is changing has uncommitted changes', async () => {
    const p = project({ '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n', 'src.txt': 'v1\n' });
    writeFileSync(p.path('src.txt'), 'v2, being written by the other ralph\n');
    const holder = await holdLockAsRalph(p.path('.ralph/.ralph.lock'));
    cleanups.push(() => holder.stop());
    const f = fake({ calls: [{ resultText: 'x' }] });
    const r = await runCli('ralph', ['--parallel', '2'], { cwd: p.dir, env: f.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^Error: Another ralph loop is already running in this project \\(pid ${holder.pid}`, 'm'));
    expect(r.stderr).not.toContain('uncommitted changes');
    expect(f.runs()).toHaveLength(0);
  });
});

/** The longest cooldown the schema accepts (a week): the planted breaker stays OPEN for the test. */
const LONGEST_COOLDOWN = '10080';

/**
 * The Bash tool's OPEN breaker, as it wrote it, opened just now: the fixture's dates are fixed, so
 * with them the cooldown would end while the fixture ages.
 */
function plantOpenBreaker(p: TmpProject): void {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const state = JSON.parse(readFileSync(new URL('../fixtures/bash-state/halted/.circuit_breaker_state', import.meta.url), 'utf8')) as Record<string, unknown>;
  writeFileSync(p.path('.ralph/.circuit_breaker_state'), `${JSON.stringify({ ...state, last_change: now, opened_at: now }, null, 4)}\n`);
}

describe('circuit breaker commands', () => {
  it('--circuit-status shows a Bash-written OPEN breaker; --reset-circuit closes it', async () => {
    const p = project();
    plantOpenBreaker(p);
    const shown = await runCli('ralph', ['--circuit-status'], { cwd: p.dir, env: { HOME: p.dir, CB_COOLDOWN_MINUTES: LONGEST_COOLDOWN } });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Circuit Breaker Status');
    expect(shown.stdout).toMatch(/State:\s+🚨 OPEN/);
    expect(shown.stdout).toMatch(/Total opens:\s+1/);

    const reset = await runCli('ralph', ['--reset-circuit'], { cwd: p.dir, env: { HOME: p.dir } });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('✅ Circuit breaker reset to CLOSED state');
    const state = JSON.parse(readFileSync(p.path('.ralph/.circuit_breaker_state'), 'utf8'));
    expect(state).toMatchObject({ state: 'CLOSED', total_opens: 0, consecutive_no_progress: 0 });
  });

  it('refusing to start on an OPEN breaker writes no session record, however often it is tried', async () => {
    const p = project();
    const f = fake({ calls: [] });
    plantOpenBreaker(p);
    for (let i = 0; i < 2; i++) {
      const r = await runCli('ralph', [], { cwd: p.dir, env: { ...f.env, CB_COOLDOWN_MINUTES: LONGEST_COOLDOWN } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('EXECUTION HALTED');
    }
    const sessions = p.path('.ralph/sessions');
    expect(existsSync(sessions) ? readdirSync(sessions).filter((name) => name.endsWith('.json')) : []).toEqual([]);
    expect(f.runs()).toHaveLength(0);
  });

  it('--reset-session records the reset', async () => {
    const p = project();
    const r = await runCli('ralph', ['--reset-session'], { cwd: p.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Session state reset successfully');
    const session = JSON.parse(readFileSync(p.path('.ralph/.ralph_session'), 'utf8'));
    expect(session.reset_reason).toBe('manual_reset_flag');
  });
});
