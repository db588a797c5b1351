// `ralph --monitor` on a real terminal (a pty, outside tmux) with the real loop and the fake
// agent: once the tmux session closes, the run's outcome and its exit code reach the user's
// terminal, for a completed, a halted and an interrupted (Ctrl-C in the loop pane) run. Ctrl-C
// in the other panes: ignored in the dashboard (it stays for the rest of the run); in the
// calling pane inside tmux it stops the waiting, and the caller says where the run goes on.
// Outside a project, or beside a loop already at work in it, it fails before any tmux session exists.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath, REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';
import { holdLockAsRalph } from '../helpers/ralph-lock-holder.js';

const RUN_IN_PTY = join(REPO_ROOT, 'tests/fixtures/pty/run-in-pty.py');

let tmux: PrivateTmux | undefined;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  tmux?.kill();
  project?.cleanup();
  fake?.cleanup();
});

const idle = { resultText: 'Looked around; nothing changed yet.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };

interface PtyRun {
  code: number | null;
  screen: string;
}

/** `ralph --monitor ...args` on an 80x24 pty, as typed in a terminal outside tmux. */
function monitorInPty(scenario: FakeScenario, args: string[]): { done: Promise<PtyRun>; tmux: PrivateTmux } {
  tmux = privateTmux();
  project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
  fake = withFakeClaude(scenario);
  const env: NodeJS.ProcessEnv = { ...process.env, ...fake.env, ...GIT_TEST_ENV, ...tmux.env, TERM: 'xterm-256color', NO_COLOR: '1' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const child = spawn('python3', [RUN_IN_PTY, process.execPath, binPath('ralph'), '--monitor', ...args], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const done = new Promise<PtyRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
  return { done, tmux };
}

/** What the terminal shows after tmux has let go of it (the text after the last escape burst). */
function afterMonitor(screen: string): string {
  const at = screen.lastIndexOf('ralph --monitor: the run ended');
  const start = screen.lastIndexOf('Last lines of the loop pane:', at);
  return screen.slice(start === -1 ? at : start).replace(/\r/g, '');
}

describe('ralph --monitor on a terminal reports how the run ended', () => {
  it('a completed run: exit 0 and the exit reason on the terminal', async () => {
    const { done } = monitorInPty({ calls: [{ ...idle, tickFixPlan: 'all', writeFiles: { 'x.txt': 'y' } }] }, ['--max-loops', '5']);
    const run = await done;
    const text = afterMonitor(run.screen);
    expect(run.code, run.screen).toBe(0);
    expect(text).toContain('ralph --monitor: the run ended with exit code 0 (done); the tmux session has closed');
    expect(text).toContain('Stopped:  done (exit reason: plan_complete, exit code 0)');
  });

  it('a halted run: exit 2, the halt reason and what to do', async () => {
    const { done } = monitorInPty({ calls: [idle], onExhausted: 'repeatLast' }, ['--max-loops', '8']);
    const run = await done;
    const text = afterMonitor(run.screen);
    expect(run.code, run.screen).toBe(2);
    expect(text).toContain('ralph --monitor: the run ended with exit code 2 (halted by a guard)');
    expect(text).toContain('Reset circuit breaker: ralph --reset-circuit');
    expect(text).toContain('Stopped:  halted by a guard (exit reason: stagnation_detected, exit code 2)');
  });

  it('one Ctrl-C in the loop pane ends the run and the session: exit 130 on the terminal', async () => {
    const { done, tmux: t } = monitorInPty({ calls: [{ ...idle, hang: 'afterInit', hangMaxMs: 60_000 }] }, ['--max-loops', '5']);
    const loopPane = await waitFor(
      'the loop pane to start the agent',
      () => {
        if (t.status('has-session') !== 0) return undefined;
        const panes = t
          .run('list-panes', '-a', '-F', '#{pane_id}|#{pane_title}')
          .trim()
          .split('\n')
          .map((l) => l.split('|'));
        const id = panes.find(([, title]) => title === 'Ralph Loop')?.[0];
        return id && /Executing Claude Code/.test(t.capture(id)) ? id : undefined;
      },
      30_000,
    );
    t.run('send-keys', '-t', loopPane, 'C-c');
    const run = await done;
    const text = afterMonitor(run.screen);
    expect(run.code, run.screen).toBe(130);
    expect(text).toContain('ralph --monitor: the run ended with exit code 130 (interrupted (Ctrl-C)); the tmux session has closed');
    expect(t.status('has-session')).not.toBe(0);
  });
});

describe('ralph --monitor outside a project', () => {
  it('fails with exit 1 and says why before any tmux session exists, with stdout not a terminal', async () => {
    tmux = privateTmux();
    project = tmpProject({}, { git: true });
    const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV, ...tmux.env, NO_COLOR: '1' };
    delete env.TMUX;
    delete env.TMUX_PANE;
    const r = await runCli('ralph', ['--monitor'], { cwd: project.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('This directory is not a Ralph project.');
    expect(r.stdout).not.toContain('session');
    // No server, so no session: tmux ls fails on the private socket.
    expect(tmux.status('list-sessions')).not.toBe(0);
  });
});

describe('ralph --monitor beside a loop already at work in the project', () => {
  it('fails with exit 1, names the running ralph and how to watch it, before any tmux session exists', async () => {
    tmux = privateTmux();
    project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
    const holder = await holdLockAsRalph(project.path('.ralph/.ralph.lock'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV, ...tmux.env, NO_COLOR: '1' };
      delete env.TMUX;
      delete env.TMUX_PANE;
      const r = await runCli('ralph', ['--monitor'], { cwd: project.dir, env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Error: Another ralph loop is already running in this project (pid ${holder.pid})`);
      expect(r.stderr).toMatch(/^hint: watch it with ralph-monitor/m);
      expect(r.stdout).not.toContain('session');
      expect(tmux.status('list-sessions')).not.toBe(0);
    } finally {
      holder.stop();
    }
  });
});

// The agent's call goes on until the test ends (the server is killed then).
const hanging = { calls: [{ ...idle, hang: 'afterInit' as const, hangMaxMs: 60_000 }] };

function setup(): Record<string, string> {
  tmux = privateTmux();
  project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
  fake = withFakeClaude(hanging);
  return { ...fake.env, ...GIT_TEST_ENV, ...tmux.env, NO_COLOR: '1' };
}

function paneByTitle(t: PrivateTmux, title: string): { id: string; dead: boolean } | undefined {
  const lines = t.run('list-panes', '-a', '-F', '#{pane_id}|#{pane_title}|#{pane_dead}').trim().split('\n');
  const found = lines.map((l) => l.split('|')).find(([, name]) => name === title);
  return found ? { id: found[0]!, dead: found[2] === '1' } : undefined;
}

const agentRunning = (t: PrivateTmux) => {
  const loop = paneByTitle(t, 'Ralph Loop');
  return loop && /Executing Claude Code/.test(t.capture(loop.id)) ? loop : undefined;
};

/** Ends the run with Ctrl-C in its loop pane and waits until ralph has closed its panes (its files are settled then). */
async function stopRun(t: PrivateTmux): Promise<void> {
  t.run('send-keys', '-t', paneByTitle(t, 'Ralph Loop')!.id, 'C-c');
  await waitFor('the run to end', () => t.status('has-session') !== 0 || paneByTitle(t, 'Ralph Loop') === undefined, 30_000);
}

describe('Ctrl-C in ralph --monitor', () => {
  it('in the dashboard pane is ignored: the dashboard stays and keeps refreshing while the run goes on', async () => {
    const env = setup();
    const r = await runCli('ralph', ['--monitor', '--max-loops', '3'], { cwd: project!.dir, env: { ...env, TMUX: '', TMUX_PANE: '' } });
    expect(r.code, r.stderr).toBe(0);
    const t = tmux!;
    await waitFor('the agent to run', () => agentRunning(t), 30_000);
    const status = await waitFor(
      'the dashboard',
      () => {
        const pane = paneByTitle(t, 'Status');
        return pane && /RALPH MONITOR/.test(t.capture(pane.id)) ? pane : undefined;
      },
      20_000,
    );
    expect(t.capture(status.id)).toContain('Ctrl+C in the loop pane stops the run');
    const clock = () => /refresh 2s · (\d\d:\d\d:\d\d)/.exec(t.capture(status.id))?.[1];
    const before = await waitFor('a footer with the time', clock);

    t.run('send-keys', '-t', status.id, 'C-c');
    // A later frame, drawn by the same pane after the Ctrl-C.
    await waitFor(
      'a frame after the Ctrl-C',
      () => {
        const pane = paneByTitle(t, 'Status');
        if (!pane || pane.dead) throw new Error('the dashboard pane is gone');
        const now = clock();
        return now !== undefined && now !== before;
      },
      20_000,
    );
    expect(paneByTitle(t, 'Status')).toMatchObject({ id: status.id, dead: false });
    expect(t.capture(status.id)).not.toContain('Monitor stopped');
    expect(agentRunning(t)).toBeDefined();
    await stopRun(t);
  });

  it('in the calling pane inside tmux stops the waiting, says where the run goes on, and exits 130', async () => {
    const env = setup();
    const t = tmux!;
    // The caller runs in a pane of its own session on the same server (so inside tmux, on a terminal).
    const envFile = join(project!.dir, '.ralph', 'caller-env');
    const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
    writeFileSync(
      envFile,
      Object.entries(env)
        .map(([k, v]) => `export ${k}=${quote(v)}`)
        .join('\n') + '\n',
    );
    // `trap : INT`: the caller's own shell survives the Ctrl-C, as an interactive one would.
    const caller = `trap : INT; . ${quote(envFile)}; cd ${quote(project!.dir)}; ${quote(process.execPath)} ${quote(binPath('ralph'))} --monitor --max-loops 3; echo "EXIT=$?"; read _`;
    t.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer', '-x', '160', '-y', '40', '--', '/bin/sh', '-c', caller);
    const callerPane = t.run('display-message', '-p', '-t', '=outer:0', '#{pane_id}').trim();
    await waitFor('the agent to run', () => agentRunning(t), 30_000);
    await waitFor('the caller to wait', () => /its outcome will be printed here when it ends/.test(t.capture(callerPane)), 20_000);

    t.run('send-keys', '-t', callerPane, 'C-c');
    const text = await waitFor(
      'the caller to stop waiting',
      () => {
        const shown = t.capture(callerPane);
        return /EXIT=\d+/.test(shown) ? shown : undefined;
      },
      20_000,
    );
    expect(text).toMatch(
      /ralph --monitor: stopped waiting \(Ctrl-C\); the run goes on in window @\d+ of tmux session outer\. Ctrl-C in its loop pane stops it/,
    );
    expect(text).toContain('EXIT=130');
    // The run itself was not touched.
    expect(agentRunning(t)).toBeDefined();
    await stopRun(t);
  });
});
