// `ralph --monitor --parallel 2` with the real loop, real git, the fake agent and real tmux (a
// private server): one dashboard with both units' lines, and a `unit-<n>` window per unit whose
// pane follows that unit's live output — its own agent's text, with the escape sequences the
// agent printed removed, and no plan text in the window's command.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';
import { LONG, parallelProject, type ParallelProject } from './parallel/parallel-helpers.js';

let tmux: PrivateTmux | undefined;
let p: ParallelProject | undefined;
afterEach(() => {
  tmux?.kill();
  p?.cleanup();
});

// OSC 0 would retitle the pane, SGR would colour it: neither may reach the unit's window.
const HOSTILE = '\x1b]0;PWNED-TITLE\x07\x1b[31mred-on-screen\x1b[0m';

/** The unit's agent says something of its own, then works on until the run is stopped. */
function says(item: string, text: string) {
  return { match: { promptRegex: `one item of the plan: ${item}` }, steps: [{ text }], hang: 'beforeResult' as const, hangMaxMs: 120_000 };
}

interface Pane {
  id: string;
  window: string;
  title: string;
  command: string;
}

function allPanes(t: PrivateTmux): Pane[] {
  // One query per field: the main window's name and the loop's command hold '|' themselves.
  const field = (id: string, format: string) => t.run('display-message', '-p', '-t', id, format).replace(/\n$/, '');
  return t
    .run('list-panes', '-a', '-F', '#{pane_id}')
    .trim()
    .split('\n')
    .map((id) => ({
      id,
      window: field(id, '#{window_name}'),
      title: field(id, '#{pane_title}'),
      command: field(id, '#{pane_start_command}'),
    }));
}

const paneOf = (t: PrivateTmux, match: (pane: Pane) => boolean) => allPanes(t).find(match);

describe('ralph --monitor --parallel', () => {
  it(
    "shows every unit in the dashboard and each unit's live output, sanitized, in its own window",
    async () => {
      const t = (tmux = privateTmux());
      p = parallelProject(['Add alpha', 'Add beta'], {
        calls: [says('Add alpha', `ALPHA-AGENT-OUTPUT ${HOSTILE} end-of-alpha`), says('Add beta', 'BETA-AGENT-OUTPUT')],
      });
      const r = await runCli('ralph', ['--monitor', '--parallel', '2'], { cwd: p.project.dir, env: { ...p.env, ...t.env, TMUX: '', TMUX_PANE: '' } });
      expect(r.code, r.stderr).toBe(0);

      const status = await waitFor(
        'the dashboard with both units running',
        () => {
          const pane = paneOf(t, (x) => x.title === 'Status');
          const text = pane ? t.capture(pane.id) : '';
          return /add-alpha +running/.test(text) && /add-beta +running/.test(text) ? pane : undefined;
        },
        60_000,
      );
      // Its Loop section says the units run their own loops (no status.json of the project's own).
      const dashboard = t.capture(status.id);
      expect(dashboard).toContain('Parallel run: 2 unit(s), each with its own loop (see Units)');
      expect(dashboard).not.toContain('Status file not found');

      const unit1 = await waitFor(
        "unit-1 to show its agent's output",
        () => {
          const pane = paneOf(t, (x) => x.window === 'unit-1');
          return pane && t.capture(pane.id).includes('end-of-alpha') ? pane : undefined;
        },
        60_000,
      );
      const unit2 = await waitFor(
        "unit-2 to show its agent's output",
        () => {
          const pane = paneOf(t, (x) => x.window === 'unit-2');
          return pane && t.capture(pane.id).includes('BETA-AGENT-OUTPUT') ? pane : undefined;
        },
        60_000,
      );
      const text1 = t.capture(unit1.id, { escapes: true });
      expect(text1).toContain('ALPHA-AGENT-OUTPUT');
      expect(text1).toContain('unit-1 add-alpha: running');
      expect(text1).not.toContain('BETA-AGENT-OUTPUT');
      expect(t.capture(unit2.id)).not.toContain('ALPHA-AGENT-OUTPUT');
      // Nothing of the escape sequences reached the pane: no colour, no title, no leftover text.
      expect(text1).not.toMatch(/\x1b\[[0-9;]*m/);
      expect(text1).not.toContain('PWNED');
      expect(paneOf(t, (x) => x.id === unit1.id)?.title).not.toContain('PWNED');
      // The windows' commands hold the unit's number, not its slug or item (plan text).
      expect(unit1.command).toMatch(/--unit 1"?$/);
      expect(unit2.command).toMatch(/--unit 2"?$/);
      for (const pane of allPanes(t)) expect(pane.command).not.toMatch(/alpha|beta/);
      // The output pane of a single loop says where the units' output is.
      const output = paneOf(t, (x) => x.title === 'Claude Output')!;
      expect(t.capture(output.id)).toContain("each unit's live output is in its own window");

      // Ctrl-C in the loop pane stops both units; the session and its unit windows close.
      t.run('send-keys', '-t', paneOf(t, (x) => x.title === 'Ralph Loop')!.id, 'C-c');
      await waitFor('the session to close', () => t.status('has-session') !== 0, 60_000);
    },
    LONG,
  );
});
