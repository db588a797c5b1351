// `ralph --monitor` on a real terminal (a pty, outside tmux) with the real loop and the fake
// agent: once the tmux session closes, the run's outcome and its exit code reach the user's
// terminal, for a completed, a halted and an interrupted (Ctrl-C in the loop pane) run.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath, REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';

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
  const env: NodeJS.ProcessEnv = { ...process.env, ...fake.env, ...GIT_TEST_ENV, RALPH_TMUX_SOCKET: tmux.socket, TERM: 'xterm-256color', NO_COLOR: '1' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  const child = spawn('python3', [RUN_IN_PTY, process.execPath, binPath('ralph'), '--monitor', ...args], { cwd: project.dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
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
    expect(text).toContain('exit reason: plan_complete');
  });

  it('a halted run: exit 2, the halt reason and what to do', async () => {
    const { done } = monitorInPty({ calls: [idle], onExhausted: 'repeatLast' }, ['--max-loops', '8']);
    const run = await done;
    const text = afterMonitor(run.screen);
    expect(run.code, run.screen).toBe(2);
    expect(text).toContain('ralph --monitor: the run ended with exit code 2 (halted by a guard)');
    expect(text).toContain('Reset circuit breaker: ralph --reset-circuit');
    expect(text).toContain('exit reason: stagnation_detected');
  });

  it('one Ctrl-C in the loop pane ends the run and the session: exit 130 on the terminal', async () => {
    const { done, tmux: t } = monitorInPty({ calls: [{ ...idle, hang: 'afterInit', hangMaxMs: 60_000 }] }, ['--max-loops', '5']);
    const loopPane = await waitFor('the loop pane to start the agent', () => {
      if (t.status('has-session') !== 0) return undefined;
      const panes = t.run('list-panes', '-a', '-F', '#{pane_id}\t#{pane_title}').trim().split('\n').map((l) => l.split('\t'));
      const id = panes.find(([, title]) => title === 'Ralph Loop')?.[0];
      return id && /Executing Claude Code/.test(t.capture(id)) ? id : undefined;
    }, 30_000);
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
    const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_TEST_ENV, RALPH_TMUX_SOCKET: tmux.socket, NO_COLOR: '1' };
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
