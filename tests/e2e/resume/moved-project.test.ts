// A project moved (`mv`) between two runs keeps what ralph saw: its state folder, keyed by the
// project's path, goes along to the new path, so items the agent ticked without work stay open
// there instead of ending the next run "done" before any call. A copy keeps nothing (its
// original is still there). Uses the built dist/.

import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const PLAN = '# Fix Plan\n- [ ] write the parser\n- [ ] write the lexer\n';
/** Ticks every item, changes no code, and claims completion. */
const tickOnly: FakeCallScript = { tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } };
const cleanups = useCleanups();

describe('a project moved between runs', () => {
  it('items ticked without work stay open at the new path', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': PLAN }), { git: true });
    cleanups.push(() => project.cleanup());
    const fake = withFakeClaude({ calls: [tickOnly, tickOnly] });
    cleanups.push(() => fake.cleanup());

    const first = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(first.code, first.stderr.slice(-2000)).toBe(3);

    const moved = `${project.dir}-moved`;
    renameSync(project.dir, moved);
    cleanups.push(() => rmSync(moved, { recursive: true, force: true }));
    const second = await runCli('ralph', ['--max-loops', '1'], { cwd: moved, env: fake.env });
    const log = readFileSync(join(moved, '.ralph/logs/ralph.log'), 'utf8');
    expect(second.code, log.slice(-2000)).toBe(3);
    expect(log).toContain('This project was moved');
    expect(log).toContain('Tasks:    0 done, 2 left');
    expect(fake.runs()).toHaveLength(2);
  });
});
