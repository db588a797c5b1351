// The dashboard shows the run record's gap to the goal and its trend, read from the newest
// .ralph/sessions/<run-id>.json that a real loop wrote.

import { afterEach, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../lib/monitor/snapshot-loader.js';
import { renderFrame } from '../../../lib/monitor/render.js';
import { loopProject, type LoopProject } from '../../helpers/loop-harness.js';
import { projectView } from '../../helpers/project-view.js';

let p: LoopProject | undefined;
afterEach(() => p?.cleanup());

describe('dashboard run record', () => {
  it('shows the run state, attempts and the gap with its trend, within 60 columns', async () => {
    // Each loop ticks one item and writes a file of its own: a tick with measured new content.
    const call = (name: string) => ({ writeFiles: { [name]: name }, tickFixPlan: 1, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
    p = loopProject({ calls: [call('a.txt'), call('b.txt')] }, { files: { '.ralph/fix_plan.md': '- [ ] one\n- [ ] two\n- [ ] three\n' } });
    const result = await p.run({ MAX_LOOPS: 2 });
    expect(result.exitCode).toBe(3);
    const snapshot = await loadSnapshot(p.project.dir, projectView(p.project.dir), p.clock.now());
    // Stopped at its loop budget: the run is finished.
    expect(snapshot.run).toMatchObject({ status: 'exhausted', attempts: 2 });
    expect(snapshot.run!.gapText).toMatch(/^gap 1 .*open item/);
    const frame = renderFrame(snapshot, { columns: 60, color: false, now: p.clock.now() });
    const line = frame.find((l) => l.startsWith('Run exhausted'));
    expect(line).toMatch(/^Run exhausted · 2 attempts · gap 1/);
    for (const l of frame) expect(l.length).toBeLessThanOrEqual(60);
  });
});
