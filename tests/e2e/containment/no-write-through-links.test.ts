// An agent that replaces ralph's logs and state files with symlinks to a file outside the
// project (a stand-in for ~/.bashrc) gets nothing written there: every write under `.ralph/`
// refuses a link or a non-regular file in its place, with a warning naming it.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const ORIGINAL = "# the user's shell start-up file\n";
const TARGETS = ['.ralph/logs/ralph.log', '.ralph/live.log', '.ralph/logs/metrics.jsonl', '.ralph/.content/.gitignore'];

describe('no write under .ralph/ follows a link the agent planted', () => {
  it('logs, live.log, metrics and the content index are not written through symlinks', async () => {
    const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS=Bash\n` }), { git: true });
    const outsideDir = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
    cleanups.push(
      () => p.cleanup(),
      () => rmSync(outsideDir, { recursive: true, force: true }),
    );
    const victims = TARGETS.map((_, i) => join(outsideDir, `victim-${i}`));
    for (const victim of victims) writeFileSync(victim, ORIGINAL);
    const plant = TARGETS.map((target, i) => `mkdir -p "$(dirname ${target})" && rm -f ${target} && ln -s '${victims[i]}' ${target}`).join(' && ');
    const f = withFakeClaude({
      defaults: {
        steps: [{ tool: 'Bash', input: { command: plant }, exec: true }],
        writeFiles: { 'out.txt': 'work' },
        statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
      },
    });
    cleanups.push(() => f.cleanup());
    const r = await runCli('ralph', ['--max-loops', '2'], { cwd: p.dir, env: f.env });
    expect(f.runs().length).toBeGreaterThanOrEqual(1);
    for (const victim of victims) expect(readFileSync(victim, 'utf8'), victim).toBe(ORIGINAL);
    expect(r.stderr).toMatch(/WARN.*\.ralph\/logs\/ralph\.log is a symlink/);
    expect(r.stderr).toMatch(/\.ralph\/live\.log is a symlink/);
  }, 60_000);
});
