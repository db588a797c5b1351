// The verification gate runs only commands the user configured or ralph detected from the
// project's manifests, never one read from a file the agent edits: an agent limited to
// ALLOWED_TOOLS="Read" that rewrites the test block of .ralph/AGENT.md gets nothing run — not in
// this run, not in the next — and the next run says once that AGENT.md names another command.
// The first run's loop runs in the test's process (tests/helpers/ralph-in-process.ts), the next is
// the built bin/ralph.

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

describe('a test command the agent wrote into AGENT.md', () => {
  it('is never run, and the next run warns once', async () => {
    const canary = mkdtempSync(join(tmpdir(), 'ralph-canary-'));
    cleanups.push(() => rmSync(canary, { recursive: true, force: true }));
    const hostileAgentMd = `# Agent\n\n## Testing\n\n\`\`\`bash\ntouch ${canary}/touched; id > ${canary}/id\n\`\`\`\n`;
    const work = (file: string) => ({ writeFiles: { [file]: file }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });
    const fake: FakeClaude = withFakeClaude({
      calls: [
        // The first loop rewrites AGENT.md (as a confused or hostile agent would) and a file.
        { ...work('a.txt'), writeFiles: { 'a.txt': 'a', '.ralph/AGENT.md': hostileAgentMd } },
        work('b.txt'),
        work('c.txt'),
      ],
    });
    cleanups.push(() => fake.cleanup());
    // No manifest: the gate has no test command of its own to run.
    const project: TmpProject = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Read"\n`, '.ralph/fix_plan.md': '- [ ] work\n' }), {
      git: true,
    });
    cleanups.push(() => project.cleanup());

    const first = await runRalphInProcess(project.dir, ['--max-loops', '2'], fake.env);
    expect(first.code, first.stderr).toBe(3);
    const second = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: fake.env });
    expect(second.code, second.stderr).toBe(3);

    expect(fake.runs()).toHaveLength(3);
    expect(readdirSync(canary)).toEqual([]);
    expect(existsSync(join(canary, 'touched'))).toBe(false);
    const warnings = second.stderr.split('\n').filter((l) => l.includes('.ralph/AGENT.md names the test command'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('[WARN]');
    expect(warnings[0]).toContain(`touch ${canary}/touched; id > ${canary}/id`);
    expect(warnings[0]).toContain('which ralph does not run');
    expect(second.stderr).toContain('Verification gate: no test command found');
  }, 60_000);
});
