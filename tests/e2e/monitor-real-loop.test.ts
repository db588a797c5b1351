// `ralph --monitor` with the real loop in real tmux (a private server per test): three titled
// panes — the loop, the live output, the dashboard — and the session closes when the loop ends
// unless --keep-monitor.

import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { privateTmux, waitFor, type PrivateTmux } from '../integration/monitor/tmux-harness.js';

let tmux: PrivateTmux | undefined;
let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  tmux?.kill();
  project?.cleanup();
  fake?.cleanup();
});

function setup(): { env: NodeJS.ProcessEnv } {
  tmux = privateTmux();
  project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [x] one\n- [ ] two\n' }), { git: true });
  fake = withFakeClaude({ calls: [{ resultText: 'never called in a dry run' }] });
  const env: NodeJS.ProcessEnv = { ...fake.env, ...tmux.env };
  return { env };
}

function panesByTitle(t: PrivateTmux): Map<string, string> {
  const lines = t.run('list-panes', '-a', '-F', '#{pane_id}|#{pane_title}').trim().split('\n');
  return new Map(lines.map((l) => l.split('|') as [string, string]).map(([id, title]) => [title, id]));
}

describe('ralph --monitor', () => {
  it('shows loop, live output and dashboard panes, and keeps them with --keep-monitor', async () => {
    const { env } = setup();
    const r = await runCli('ralph', ['--monitor', '--dry-run', '--max-loops', '2', '--keep-monitor'], { cwd: project!.dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tmux');
    const t = tmux!;
    const panes = await waitFor('three titled panes', () => {
      const p = panesByTitle(t);
      return p.size === 3 ? p : undefined;
    });
    expect([...panes.keys()].sort()).toEqual(['Claude Output', 'Ralph Loop', 'Status']);
    await waitFor('the loop to finish both dry-run loops', () => /Loop #2 would execute/.test(t.capture(panes.get('Ralph Loop')!)), 20_000);
    expect(t.capture(panes.get('Ralph Loop')!)).toContain('[DRY RUN] Simulation complete');
    await waitFor('the live output pane', () => /\[DRY RUN\] Loop #2 would execute/.test(t.capture(panes.get('Claude Output')!)), 20_000);
    await waitFor('the dashboard', () => /RALPH MONITOR/i.test(t.capture(panes.get('Status')!)), 20_000);
    expect(t.status('has-session')).toBe(0);
  });

  it('closes the session when the loop ends', async () => {
    const { env } = setup();
    const r = await runCli('ralph', ['--monitor', '--dry-run', '--max-loops', '2'], { cwd: project!.dir, env });
    expect(r.code).toBe(0);
    const t = tmux!;
    await waitFor('the session to close after the loop', () => t.status('has-session') !== 0, 20_000);
  });
});
