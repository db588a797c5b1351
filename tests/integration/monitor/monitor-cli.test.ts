// ralph-monitor as users and scripts run it: the real bin/ shim over the built dist/.

import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { visibleWidth } from '../../../lib/monitor/ansi.js';
import { ENTER_SCREEN, LEAVE_SCREEN } from '../../../lib/monitor/frame-patch.js';
import { runCli } from '../../helpers/run-cli.js';
import { stateProject, type StateProject } from '../../unit/monitor/fixture-state.js';

/** CJK ideographs and full-width punctuation: two terminal cells each. */
const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uff60]/;

let project: StateProject | undefined;
afterEach(() => project?.cleanup());

describe('ralph-monitor --once', () => {
  it.each([
    ['completed', ['Loop #6', 'Status: completed', 'Calls  5/100', 'Exit reason: plan_complete']],
    ['halted', ['Loop #3', 'Status: halted', 'Calls  3/100', 'OPEN']],
    ['midrun', ['Loop #3', 'Status: running', 'Calls  3/100', 'Working']],
  ] as const)('prints loop count, status and calls from a Bash-written %s .ralph/', async (fixture, expected) => {
    project = stateProject(fixture);
    const result = await runCli('ralph-monitor', ['--once'], { cwd: project.dir });
    expect(result.code).toBe(0);
    for (const piece of expected) expect(result.stdout).toContain(piece);
    expect(result.stdout).not.toContain('\x1b[');
    expect(result.stderr).toBe('');
  });

  it('prints a warning line for a corrupt status.json and still exits 0', async () => {
    project = stateProject('midrun');
    project.write('.ralph/status.json', '{"loop_count": 3, "stat');
    project.write('.ralph/.circuit_breaker_state', '<<<garbage>>>');
    const result = await runCli('ralph-monitor', ['--once'], { cwd: project.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('! .circuit_breaker_state is corrupt (not a JSON object); ignored');
    // What could be salvaged from the half-written status.json is still shown.
    expect(result.stdout).toContain('Loop #3');
    project.write('.ralph/status.json', 'not json at all');
    const worse = await runCli('ralph-monitor', ['--once'], { cwd: project.dir });
    expect(worse.code).toBe(0);
    expect(worse.stdout).toContain('! status.json is corrupt (not a JSON object); ignored');
    expect(worse.stdout).toContain('Status file not found');
  });

  it('fits 60 terminal columns, wide characters counted as two', async () => {
    project = stateProject('halted');
    // Text the monitor shows from files, in CJK (two cells a character): cut by code points,
    // these lines would take up to twice the width.
    const edit = (file: string, change: Record<string, string>) => {
      const state = JSON.parse(readFileSync(`${project!.dir}/.ralph/${file}`, 'utf8')) as Record<string, unknown>;
      project!.write(`.ralph/${file}`, JSON.stringify({ ...state, ...change }));
    };
    edit('status.json', { exit_reason: '停滞检测：连续三次循环没有任何进展，断路器已经打开并停止运行' });
    edit('.circuit_breaker_state', { reason: '没有进展：连续三次循环都没有修改任何文件，断路器打开' });
    const result = await runCli('ralph-monitor', ['--once'], { cwd: project.dir, env: { COLUMNS: '60' } });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(visibleWidth(line), line).toBeLessThanOrEqual(60);
    // The same for the CJK lines, measured without the monitor's own width table.
    const cjk = lines.filter((line) => CJK.test(line));
    expect(cjk.length).toBeGreaterThanOrEqual(2);
    for (const line of cjk)
      expect(
        [...line].reduce((cells, c) => cells + (CJK.test(c) ? 2 : 1), 0),
        line,
      ).toBeLessThanOrEqual(60);
  });

  it.each([
    ['--once', ['--once']],
    ['live', []],
  ] as const)('says there is no project and exits 1 outside one (%s)', async (_mode, flags) => {
    project = stateProject();
    const result = await runCli('ralph-monitor', [...flags], { cwd: `${project.dir}/.ralph` });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Error: No Ralph project here: ${project.dir}/.ralph has no .ralph/ directory`);
    // .ralph/ is a folder of the project: the hint names the project to cd into.
    expect(result.stderr).toContain(`hint: this folder is inside the Ralph project ${project.dir}: cd ${project.dir}, and run it there`);
  });

  it('ends its one frame with the time, not the keys and refresh of the live dashboard', async () => {
    project = stateProject('completed');
    const result = await runCli('ralph-monitor', ['--once'], { cwd: project.dir });
    const last = result.stdout.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^as of \d\d:\d\d:\d\d$/);
    expect(result.stdout).not.toContain('Ctrl+C');
    expect(result.stdout).not.toContain('refresh');
  });
});

describe('ralph-monitor flags', () => {
  it('rejects a bad --interval and unknown flags with exit 1 and a hint', async () => {
    const bad = await runCli('ralph-monitor', ['--interval', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Error: --interval requires a number of seconds between 0.1 and 3600');
    expect(bad.stderr).toContain('hint:');
    const unknown = await runCli('ralph-monitor', ['--bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: Unknown argument: bogus/);
  });

  it('rejects a --unit that is not a unit number, and --unit with --once, with exit 1 and a hint', async () => {
    for (const value of ['0', 'x', '-1', '1000']) {
      const bad = await runCli('ralph-monitor', ['--unit', value]);
      expect(bad.code, value).toBe(1);
      expect(bad.stderr).toContain('Error: --unit requires a unit number from 1 to 999 (its place in the plan)');
      expect(bad.stderr).toContain('hint: e.g. ralph-monitor --unit 2');
    }
    const once = await runCli('ralph-monitor', ['--unit', '1', '--once']);
    expect(once.code).toBe(1);
    expect(once.stderr).toContain('Error: --unit follows a live output and does not go with --once');
  });

  it('prints help', async () => {
    const result = await runCli('ralph-monitor', ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--once');
    expect(result.stdout).toContain('--interval');
    expect(result.stdout).toContain('--unit N');
  });
});

describe('ralph-monitor live', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('draws frames and restores the terminal on %s', async (signal) => {
    project = stateProject('completed');
    let output = '';
    let sent = false;
    let child: { kill(signal: NodeJS.Signals): void } | undefined;
    const result = await runCli('ralph-monitor', ['--interval', '0.2'], {
      cwd: project.dir,
      onStdout: (text) => {
        output += text;
        // The first frame is on screen: stop the dashboard the way a user or tmux would.
        if (!sent && output.includes('Ctrl+C to exit · refresh 0.2s')) {
          sent = true;
          child?.kill(signal);
        }
      },
      onSpawn: (c) => {
        child = c;
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(ENTER_SCREEN)).toBe(true);
    expect(result.stdout).toContain('Loop #6');
    expect(result.stdout.endsWith(`${LEAVE_SCREEN}Monitor stopped.\n`)).toBe(true);
  });
});
