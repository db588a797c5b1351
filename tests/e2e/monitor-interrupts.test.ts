// Ctrl-C in the other panes of `ralph --monitor`, with the real loop in real tmux (a private
// server per test): in the dashboard pane it is ignored (the dashboard stays for the rest of the
// run); in the calling pane inside tmux it stops the waiting, and the caller says where the run
// goes on.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath, runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';

let tmux: PrivateTmux | undefined;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  tmux?.kill();
  project?.cleanup();
  fake?.cleanup();
});

const idle = { resultText: 'Looked around; nothing changed yet.', statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } };
// The agent's call goes on until the test ends (the server is killed then).
const hanging = { calls: [{ ...idle, hang: 'afterInit' as const, hangMaxMs: 60_000 }] };

function setup(): Record<string, string> {
  tmux = privateTmux();
  project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] one\n' }), { git: true });
  fake = withFakeClaude(hanging);
  return { ...fake.env, ...GIT_TEST_ENV, RALPH_TMUX_SOCKET: tmux.socket, NO_COLOR: '1' };
}

function paneByTitle(t: PrivateTmux, title: string): { id: string; dead: boolean } | undefined {
  const lines = t.run('list-panes', '-a', '-F', '#{pane_id}\t#{pane_title}\t#{pane_dead}').trim().split('\n');
  const found = lines.map((l) => l.split('\t')).find(([, name]) => name === title);
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
    const status = await waitFor('the dashboard', () => {
      const pane = paneByTitle(t, 'Status');
      return pane && /RALPH MONITOR/.test(t.capture(pane.id)) ? pane : undefined;
    }, 20_000);
    expect(t.capture(status.id)).toContain('Ctrl+C in the loop pane stops the run');
    const clock = () => /refresh 2s · (\d\d:\d\d:\d\d)/.exec(t.capture(status.id))?.[1];
    const before = await waitFor('a footer with the time', clock);

    t.run('send-keys', '-t', status.id, 'C-c');
    // A later frame, drawn by the same pane after the Ctrl-C.
    await waitFor('a frame after the Ctrl-C', () => {
      const pane = paneByTitle(t, 'Status');
      if (!pane || pane.dead) throw new Error('the dashboard pane is gone');
      const now = clock();
      return now !== undefined && now !== before;
    }, 20_000);
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
    writeFileSync(envFile, Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`).join('\n') + '\n');
    // `trap : INT`: the caller's own shell survives the Ctrl-C, as an interactive one would.
    const caller = `trap : INT; . ${quote(envFile)}; cd ${quote(project!.dir)}; ${quote(process.execPath)} ${quote(binPath('ralph'))} --monitor --max-loops 3; echo "EXIT=$?"; read _`;
    t.run('-f', '/dev/null', 'new-session', '-d', '-s', 'outer', '-x', '160', '-y', '40', '--', '/bin/sh', '-c', caller);
    const callerPane = t.run('display-message', '-p', '-t', '=outer:0', '#{pane_id}').trim();
    await waitFor('the agent to run', () => agentRunning(t), 30_000);
    await waitFor('the caller to wait', () => /its outcome will be printed here when it ends/.test(t.capture(callerPane)), 20_000);

    t.run('send-keys', '-t', callerPane, 'C-c');
    const text = await waitFor('the caller to stop waiting', () => {
      const shown = t.capture(callerPane);
      return /EXIT=\d+/.test(shown) ? shown : undefined;
    }, 20_000);
    expect(text).toMatch(/ralph --monitor: stopped waiting \(Ctrl-C\); the run goes on in window @\d+ of tmux session outer\. Ctrl-C in its loop pane stops it/);
    expect(text).toContain('EXIT=130');
    // The run itself was not touched.
    expect(agentRunning(t)).toBeDefined();
    await stopRun(t);
  });
});
