// `ralph --monitor` with real tmux on a private server per test. The loop pane runs a stand-in
// loop (tests/fixtures/fake-ralph) that prints its argv and environment and waits for the test
// to release it; the status pane runs the real built ralph-monitor.

import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRalphError } from '../../../lib/errors.js';
import type { Logger } from '../../../lib/platform/deps.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import type { ProcessRunner } from '../../../lib/platform/process-types.js';
import {
  launchMonitorSession,
  LIVE_LOG_PLACEHOLDER,
  PARALLEL_LIVE_LOG_NOTE,
  WINDOW_NAME,
  type MonitorSessionOptions,
} from '../../../lib/monitor/tmux-session.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { ourStatus, stateProject, type StateProject } from '../../unit/monitor/fixture-state.js';
import { privateTmux, waitFor, type PrivateTmux } from './tmux-harness.js';

const FAKE_RALPH = join(REPO_ROOT, 'tests/fixtures/fake-ralph/fake-ralph.mjs');
const MONITOR = join(REPO_ROOT, 'dist/cli/monitor/monitor.js');
const NASTY_VALUE = `it's a "value" with $HOME and \`id\``;

let tmux: PrivateTmux;
let project: StateProject;
// Each test's own temp folder (TMPDIR, which the session's private files go under): what is
// left there is this test's, whatever else runs on the machine.
let privateTmp: string | undefined;
const callerTmpdir = process.env.TMPDIR;
const cleanups: Array<() => void> = [];
afterEach(() => {
  tmux?.kill();
  project?.cleanup();
  for (const cleanup of cleanups.splice(0)) cleanup();
  if (callerTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = callerTmpdir;
  if (privateTmp) rmSync(privateTmp, { recursive: true, force: true });
  privateTmp = undefined;
});

function setup(): void {
  // A short name: the private tmux server's socket, under it, must have a path of 108 bytes at most.
  privateTmp = mkdtempSync(join(tmpdir(), 'tt-'));
  process.env.TMPDIR = privateTmp;
  tmux = privateTmux();
  project = stateProject();
  project.write('.ralph/status.json', ourStatus({ loop_count: 7, status: 'running' }));
  project.write('.ralph/fix_plan.md', '- [x] one\n- [ ] two\n');
}

const silentLogger: Logger = { log() {}, info() {}, warn() {}, error() {}, success() {}, debug() {} };

function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: tmux.env.TMUX_TMPDIR, RALPH_MONITOR_TEST_MARK: NASTY_VALUE, ...extra };
  delete env.TMUX;
  delete env.TMUX_PANE;
  if (!('NO_COLOR' in extra)) delete env.NO_COLOR;
  return env;
}

async function launch(overrides: Partial<MonitorSessionOptions> = {}) {
  const written: string[] = [];
  const { sessionName: name, exitCode } = await launchMonitorSession({
    projectDir: project.dir,
    forwardedArgv: ['--monitor', '--dry-run', '--max-loops', '2'],
    env: baseEnv(),
    ralphCommand: [process.execPath, FAKE_RALPH],
    monitorCommand: [process.execPath, MONITOR],
    keepMonitor: false,
    tmuxSocket: tmux.socket,
    stdoutIsTTY: false,
    insideTmux: false,
    processRunner: nodeProcessRunner,
    logger: silentLogger,
    write: (text) => written.push(text),
    ...overrides,
  });
  return { name, exitCode, written };
}

function panes(target: string): Array<{ id: string; title: string; dead: boolean }> {
  return tmux
    .run('list-panes', '-t', target, '-F', '#{pane_id}|#{pane_title}|#{pane_dead}')
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', title = '', dead = ''] = line.split('|');
      return { id, title, dead: dead === '1' };
    });
}

function fakeRalphRecord(): { argv: string[]; markers: Record<string, string>; term: string | null } {
  return JSON.parse(readFileSync(join(project.dir, '.ralph/fake-ralph.json'), 'utf8'));
}

const leftoverPrivateDirs = () => readdirSync(privateTmp!).filter((n) => n.startsWith('ralph-monitor-'));
const releaseLoop = () => writeFileSync(join(project.dir, '.ralph/fake-ralph.release'), '');
const sessionGone = (name: string) => tmux.status('has-session', '-t', `=${name}`) !== 0;

describe('launchMonitorSession with real tmux', () => {
  it('shows the loop, its live output and the dashboard in three titled panes, and closes when the loop ends', async () => {
    setup();
    const { name, written } = await launch();
    expect(name).toMatch(/^ralph-\d+(-\d+)?$/);
    expect(written.join('')).toBe(`ralph --monitor: session ${name} started; attach with: tmux -L ${tmux.socket} attach -t ${name}\n`);
    expect(tmux.run('display-message', '-p', '-t', `=${name}:`, '#{window_name}').trim()).toBe(WINDOW_NAME);
    const [loop, output, status] = panes(`=${name}`);
    expect([loop?.title, output?.title, status?.title]).toEqual(['Ralph Loop', 'Claude Output', 'Status']);
    // The status bar has room for `[<session name>] `.
    expect(Number(tmux.run('show-options', '-v', '-t', `=${name}:`, 'status-left-length').trim())).toBeGreaterThanOrEqual(`[${name}] `.length);

    await waitFor('the loop output', () => tmux.capture(loop!.id).includes('FAKE-RALPH argv ["--dry-run","--max-loops","2"]'));
    expect(tmux.capture(loop!.id)).toContain(`FAKE-RALPH env RALPH_MONITOR_TEST_MARK=${NASTY_VALUE}`);
    await waitFor('the live output', () => {
      const text = tmux.capture(output!.id);
      return text.includes(LIVE_LOG_PLACEHOLDER) && text.includes('fake agent says hello from the live stream');
    });
    // Each loop starts a fresh live.log; the pane shows it without tail's "file truncated".
    writeFileSync(join(project.dir, '.ralph/live.log'), '=== Loop #2 ===\n');
    await waitFor('the next loop in the live output', () => tmux.capture(output!.id).includes('=== Loop #2 ==='));
    expect(tmux.capture(output!.id)).not.toContain('truncated');
    await waitFor('the dashboard', () => {
      const text = tmux.capture(status!.id);
      return text.includes('RALPH MONITOR') && text.includes('Loop #7') && text.includes('1/2 done');
    });
    // Colour is on in the dashboard pane (a TTY without NO_COLOR).
    expect(tmux.capture(status!.id, { escapes: true })).toMatch(/\x1b\[[0-9;]*m/);

    releaseLoop();
    await waitFor('the session to close after the loop ends', () => sessionGone(name));
  });

  it('shows what the agent appends to live.log in the output pane without its escape sequences', async () => {
    setup();
    const { name } = await launch();
    const [, output] = panes(`=${name}`);
    await waitFor('the live output', () => tmux.capture(output!.id).includes('fake agent says hello from the live stream'));
    // Written straight into live.log, past ralph's own sanitizing writer: a pane title, a
    // green "[SUCCESS]" line drawn over the one before it, a cleared screen, a cursor jump.
    appendFileSync(
      join(project.dir, '.ralph/live.log'),
      [
        'agent line one\n',
        '\x1b]2;ralph: ALL TESTS PASSED\x07\x1b]0;ralph: ALL TESTS PASSED\x07',
        '\x1b[1A\x1b[2K\r\x1b[32m[SUCCESS] All 42 tests passed - safe to merge\x1b[0m\n',
        '\x1b[2J\x1b[Hafter the clear\n',
      ].join(''),
    );
    await waitFor('the appended text', () => tmux.capture(output!.id).includes('after the clear'));
    const shown = tmux.capture(output!.id, { escapes: true });
    // Nothing was erased or drawn over: every line is still there, in order, with no colour, and
    // each behind the gutter that marks the agent's text: none passes for a line of ralph's.
    expect(shown).toMatch(
      /│ fake agent says hello from the live stream\n│ agent line one\n│ \[SUCCESS\] All 42 tests passed - safe to merge\n│ after the clear/,
    );
    expect(shown).not.toMatch(/^\[SUCCESS\]/m);
    expect(shown).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(panes(`=${name}`)[1]!.title).toBe('Claude Output');
    expect(tmux.run('display-message', '-p', '-t', output!.id, '#{pane_title}').trim()).toBe('Claude Output');
    releaseLoop();
    await waitFor('the session to close after the loop ends', () => sessionGone(name));
  });

  it('keeps the session with --keep-monitor, the finished loop pane still readable', async () => {
    setup();
    const { name } = await launch({ keepMonitor: true, env: baseEnv({ FAKE_RALPH_EXIT_CODE: '3' }) });
    const [loop] = panes(`=${name}`);
    await waitFor('the loop to start', () => tmux.capture(loop!.id).includes('FAKE-RALPH started'));
    releaseLoop();
    await waitFor('the loop pane to finish', () => panes(`=${name}`)[0]?.dead);
    expect(sessionGone(name)).toBe(false);
    expect(panes(`=${name}`)).toHaveLength(3);
    const text = tmux.capture(loop!.id);
    expect(text).toContain('FAKE-RALPH finished');
    expect(text).toContain('[ralph exited with code 3; the monitor stays open (--keep-monitor)]');
    // The test's server has its socket in a folder of its own, which goes with it.
    const folder = tmux.env.TMUX_TMPDIR;
    expect(tmux.run('display-message', '-p', '#{socket_path}').trim()).toBe(join(folder, `tmux-${process.getuid?.() ?? 0}`, tmux.socket));
    tmux.kill();
    expect(existsSync(folder)).toBe(false);
  });

  it('keeps the session when ralph could not run, until the user has read the error and pressed Enter', async () => {
    setup();
    const { name } = await launch({ env: baseEnv({ FAKE_RALPH_EXIT_CODE: '1' }) });
    const [loop] = panes(`=${name}`);
    await waitFor('the loop to start', () => tmux.capture(loop!.id).includes('FAKE-RALPH started'));
    releaseLoop();
    await waitFor('the prompt', () => tmux.capture(loop!.id).includes('[ralph could not run (exit code 1); press Enter to close]'));
    expect(sessionGone(name)).toBe(false);
    tmux.run('send-keys', '-t', loop!.id, 'Enter');
    await waitFor('the session to close', () => sessionGone(name));
  });

  it('forwards every flag and the caller environment to the loop, values intact, through a file it deletes', async () => {
    setup();
    const { name } = await launch({
      forwardedArgv: [
        '-m',
        '--notify',
        '--show-tool-args',
        '--allowed-tools',
        'Bash(git *),Read',
        '--prompt',
        "my 'odd' prompt.md",
        '--keep-monitor',
        '--calls',
        '7',
      ],
      env: baseEnv({ MAX_CALLS_PER_HOUR: '42', NO_COLOR: '1' }),
    });
    // Read until it parses: the stand-in writes the file non-atomically.
    const got = await waitFor('the loop to record what it got', () => fakeRalphRecord());
    expect(got.argv).toEqual(['--notify', '--show-tool-args', '--allowed-tools', 'Bash(git *),Read', '--prompt', "my 'odd' prompt.md", '--calls', '7']);
    expect(got.markers).toEqual({ RALPH_MONITOR_TEST_MARK: NASTY_VALUE });
    // The pane's TERM is tmux's own, not the caller's terminal.
    expect(got.term).toMatch(/^(screen|tmux)/);
    expect(leftoverPrivateDirs()).toEqual([]);
    const status = panes(`=${name}`)[2]!;
    await waitFor('the dashboard', () => tmux.capture(status.id).includes('RALPH MONITOR'));
    expect(tmux.capture(status.id, { escapes: true })).not.toMatch(/\x1b\[[0-9;]*m/);
    releaseLoop();
    await waitFor('the session to close', () => sessionGone(name));
  });

  it('works when the tmux server numbers windows and panes from 1', async () => {
    setup();
    tmux.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer');
    tmux.run('set-option', '-g', 'base-index', '1');
    tmux.run('set-option', '-gw', 'pane-base-index', '1');
    const { name } = await launch();
    const [loop, output, status] = panes(`=${name}`);
    expect(tmux.run('list-panes', '-t', `=${name}`, '-F', '#{pane_index}').trim().split('\n')).toEqual(['1', '2', '3']);
    expect([loop?.title, output?.title, status?.title]).toEqual(['Ralph Loop', 'Claude Output', 'Status']);
    await waitFor('the loop output', () => tmux.capture(loop!.id).includes('FAKE-RALPH argv'));
    releaseLoop();
    await waitFor('the session to close', () => sessionGone(name));
    expect(sessionGone('outer')).toBe(false);
  });

  it('opens a window in the current session when already inside tmux, and closes only that window', async () => {
    setup();
    tmux.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer');
    const [socketPath, serverPid, paneId] = tmux.run('display-message', '-p', '-t', '=outer', '#{socket_path}|#{pid}|#{pane_id}').trim().split('|');
    const { name, written } = await launch({
      insideTmux: true,
      env: baseEnv({ TMUX: `${socketPath},${serverPid},0`, TMUX_PANE: paneId }),
    });
    expect(name).toBe('outer');
    const windows = () => tmux.run('list-windows', '-t', '=outer', '-F', '#{window_name}').trim().split('\n');
    expect(windows()).toHaveLength(2);
    expect(windows()[1]).toBe(WINDOW_NAME);
    expect(written.join('')).toMatch(/^ralph --monitor: opened window @\d+ in tmux session outer\n$/);
    const loop = panes(`=outer:${WINDOW_NAME}`)[0]!;
    await waitFor('the loop output', () => tmux.capture(loop.id).includes('FAKE-RALPH argv'));
    releaseLoop();
    await waitFor('the monitor window to close', () => windows().length === 1);
    expect(sessionGone('outer')).toBe(false);
  });

  it("opens a unit-<n> window per unit of a parallel run, each following that unit's live output, and closes them with the session", async () => {
    setup();
    const { name } = await launch({ unitWindows: 2 });
    const windows = tmux.run('list-windows', '-t', `=${name}`, '-F', '#{window_id}').trim().split('\n');
    const named = windows.map((id) => tmux.run('display-message', '-p', '-t', id, '#{window_name}').trim());
    expect(named).toEqual([WINDOW_NAME, 'unit-1', 'unit-2']);
    // The loop's window stays the one shown.
    expect(tmux.run('display-message', '-p', '-t', `=${name}:`, '#{window_name}').trim()).toBe(WINDOW_NAME);
    const [, unit1, unit2] = windows.map((id) => panes(id)[0]!.id);
    await waitFor("unit-2's placeholder", () => tmux.capture(unit2!).includes('=== unit-2: waiting for unit 2 of a parallel run'));
    project.write(
      '.ralph/parallel.json',
      JSON.stringify({
        run_id: 'p1',
        base_commit: 'a'.repeat(40),
        run_branch: 'main',
        started_at: '2026-12-02T04:00:00Z',
        finished: false,
        units: ['add-alpha', 'add-beta'].map((slug) => ({
          slug,
          item: slug,
          lines: [],
          after: [],
          branch: `ralph/p1/${slug}`,
          worktree: `.ralph/worktrees/${slug}`,
          state: 'running',
        })),
      }),
    );
    project.write('.ralph/worktrees/p1-add-alpha/.ralph/live.log', 'alpha says \x1b[31mhi\x1b[0m\n');
    await waitFor("unit-1's live output", () => tmux.capture(unit1!).includes('alpha says hi'));
    expect(tmux.capture(unit1!, { escapes: true })).not.toMatch(/\x1b\[[0-9;]*31m/);
    await waitFor('unit-2 waiting for its output', () => tmux.capture(unit2!).includes('unit-2 add-beta: waiting for its live output'));
    // The output pane says where the units' output is.
    // ralph wrote it into live.log: shown behind the gutter, wrapped at the pane's width.
    const unwrapped = () => tmux.capture(panes(`=${name}:${windows[0]}`)[1]!.id).replace(/\n│ /g, '');
    await waitFor("the output pane's note", () => unwrapped().includes(`│ ${PARALLEL_LIVE_LOG_NOTE}`));
    releaseLoop();
    await waitFor('the session to close', () => sessionGone(name));
  });

  it("inside tmux, closes the unit windows with the run's window", async () => {
    setup();
    tmux.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer');
    const [socketPath, serverPid, paneId] = tmux.run('display-message', '-p', '-t', '=outer', '#{socket_path}|#{pid}|#{pane_id}').trim().split('|');
    await launch({ insideTmux: true, unitWindows: 2, env: baseEnv({ TMUX: `${socketPath},${serverPid},0`, TMUX_PANE: paneId }) });
    const windows = () =>
      tmux
        .run('list-windows', '-t', '=outer', '-F', '#{window_id}')
        .trim()
        .split('\n')
        .map((id) => tmux.run('display-message', '-p', '-t', id, '#{window_name}').trim());
    expect(windows()).toEqual([windows()[0], WINDOW_NAME, 'unit-1', 'unit-2']);
    await waitFor('the loop to start', () => existsSync(join(project.dir, '.ralph/fake-ralph.json')));
    releaseLoop();
    await waitFor("the run's windows to close", () => windows().length === 1);
    expect(sessionGone('outer')).toBe(false);
  });

  it('attaches when stdout is a terminal', async () => {
    setup();
    const calls: string[][] = [];
    const { name, written } = await launch({
      stdoutIsTTY: true,
      attach: async (cmd, args) => {
        calls.push([cmd, ...args]);
        return 0;
      },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.slice(1)).toEqual(['-L', tmux.socket, 'attach-session', '-t', `=${name}`]);
    expect(calls[0]![0]).toMatch(/tmux$/);
    // The fake attach returned at once, as a detach (Ctrl+B D) does: the run goes on.
    expect(written.join('')).toBe(`ralph --monitor: detached; the run goes on in tmux session ${name} (reattach: tmux -L ${tmux.socket} attach -t ${name})\n`);
    // A caller that detaches at once removes its private folder only after the loop has read
    // the environment in it: the run goes on with the caller's settings.
    await waitFor('the loop to start', () => existsSync(join(project.dir, '.ralph/fake-ralph.json')));
    expect(fakeRalphRecord().markers.RALPH_MONITOR_TEST_MARK).toBe(NASTY_VALUE);
    expect(leftoverPrivateDirs()).toEqual([]);
    releaseLoop();
    await waitFor('the session to close', () => sessionGone(name));
  });

  it("on a terminal, prints the loop pane's last lines and returns its exit code once the session closes", async () => {
    setup();
    const { exitCode, written } = await launch({
      stdoutIsTTY: true,
      env: baseEnv({ FAKE_RALPH_EXIT_CODE: '2' }),
      // Stands in for the user watching until the session ends.
      attach: async (_cmd, args) => {
        releaseLoop();
        const target = args.at(-1)!;
        await waitFor('the session to close', () => tmux.status('has-session', '-t', target) !== 0);
        return 0;
      },
    });
    expect(exitCode).toBe(2);
    const text = written.join('');
    expect(text).toContain('Last lines of the loop pane:\n  FAKE-RALPH started\n');
    expect(text).toContain('  FAKE-RALPH finished\n');
    expect(text).toMatch(/ralph --monitor: the run ended with exit code 2 \(halted by a guard\); the tmux session has closed\n$/);
    expect(leftoverPrivateDirs()).toEqual([]);
  });

  it('inside tmux on a terminal, says where the window is and prints the outcome in the calling pane', async () => {
    setup();
    tmux.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer');
    const [socketPath, serverPid, paneId] = tmux.run('display-message', '-p', '-t', '=outer', '#{socket_path}|#{pid}|#{pane_id}').trim().split('|');
    const launched = launch({
      insideTmux: true,
      stdoutIsTTY: true,
      env: baseEnv({ TMUX: `${socketPath},${serverPid},0`, TMUX_PANE: paneId, FAKE_RALPH_EXIT_CODE: '3' }),
    });
    await waitFor('the loop to start', () => existsSync(join(project.dir, '.ralph/fake-ralph.json')));
    releaseLoop();
    const { exitCode, written } = await launched;
    expect(exitCode).toBe(3);
    const text = written.join('');
    expect(text).toMatch(/^ralph --monitor: the run is in window @\d+ of tmux session outer; its outcome will be printed here when it ends\n/);
    expect(text).toContain('  FAKE-RALPH finished\n');
    expect(text).toMatch(/the run ended with exit code 3 \(stopped at a limit\); window @\d+ has closed\n$/);
    expect(sessionGone('outer')).toBe(false);
  });

  it('inside tmux on a terminal, a run that ends before its window is selected still has its outcome printed', async () => {
    setup();
    tmux.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer');
    const [socketPath, serverPid, paneId] = tmux.run('display-message', '-p', '-t', '=outer', '#{socket_path}|#{pid}|#{pane_id}').trim().split('|');
    // The run is over, and its window closed, by the time ralph would select the window.
    const runEndsFirst: ProcessRunner = {
      start: (cmd, args, options) => nodeProcessRunner.start(cmd, args, options),
      async run(cmd, args, options) {
        const selecting = args.indexOf('select-window');
        if (selecting >= 0) {
          const windowId = args[selecting + 2]!;
          releaseLoop();
          await waitFor('the run to end and close its window', () => !tmux.run('list-windows', '-a', '-F', '#{window_id}').split('\n').includes(windowId));
        }
        return nodeProcessRunner.run(cmd, args, options);
      },
    };
    const { exitCode, written } = await launch({
      insideTmux: true,
      stdoutIsTTY: true,
      processRunner: runEndsFirst,
      env: baseEnv({ TMUX: `${socketPath},${serverPid},0`, TMUX_PANE: paneId, FAKE_RALPH_EXIT_CODE: '3' }),
    });
    expect(exitCode).toBe(3);
    expect(written.join('')).toMatch(/the run ended with exit code 3 \(stopped at a limit\); window @\d+ has closed\n$/);
  });

  it('one Ctrl-C in the loop pane stops the loop and closes the session', async () => {
    setup();
    const { name } = await launch();
    const [loop] = panes(`=${name}`);
    await waitFor('the loop to start', () => tmux.capture(loop!.id).includes('FAKE-RALPH started'));
    tmux.run('send-keys', '-t', loop!.id, 'C-c');
    await waitFor('the session to close', () => sessionGone(name));
  });

  it('fails with a clear error and exit code 1 when tmux is not installed', async () => {
    setup();
    const emptyBin = mkdtempSync(join(tmpdir(), 'ralph-no-tmux-'));
    cleanups.push(() => rmSync(emptyBin, { recursive: true, force: true }));
    const error = await launch({ env: baseEnv({ PATH: emptyBin }) }).catch((e: unknown) => e);
    expect(isRalphError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'tmux_missing',
      message: 'tmux is not installed',
      exitCode: 1,
      hint: 'install tmux (apt install tmux / brew install tmux) or run ralph without --monitor',
    });
  });
});
