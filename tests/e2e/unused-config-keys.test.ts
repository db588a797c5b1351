// A key ralph accepts for compatibility but does not use yet (the GitHub lifecycle, sandbox and
// sync keys of the Bash tool's later versions): setting it is worth one warning at start-up and a
// mark in `ralph --config`, so nobody believes a sandbox is on when it is not.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const WARNING = 'SANDBOX_E2B_TEMPLATE: accepted for compatibility but not used: setting it has no effect';
const count = (text: string, piece: string) => text.split(piece).length - 1;

describe('accepted-but-unused keys', () => {
  it('a loop started with one set warns once, naming the key and its line', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nSANDBOX_E2B_TEMPLATE=mine\n' }));
    const run = await runCli('ralph', ['--dry-run', '--max-loops', '2'], { cwd: project.dir, env: { HOME: project.dir } });
    expect(run.code, run.stderr).toBe(0);
    const output = run.stdout + run.stderr;
    expect(count(output, WARNING)).toBe(1);
    expect(output).toContain(`.ralphrc:2 ${WARNING}`);
  });

  it('ralph --config warns once and marks every such key', async () => {
    project = tmpProject(ralphProjectTree({ '.ralphrc': 'CLAUDE_AUTO_UPDATE=false\nSANDBOX_E2B_TEMPLATE=mine\n' }));
    const r = await runCli('ralph', ['--config'], { cwd: project.dir, env: { HOME: project.dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Warning: .ralphrc:2 ${WARNING}\n`);
    expect(r.stdout).toMatch(/^SANDBOX_E2B_TEMPLATE += mine +\(\.ralphrc:2, not used\)$/m);
    expect(r.stdout).toMatch(/^SYNC_INCLUDE += "" +\(default, not used\)$/m);
    expect(r.stdout).toMatch(/^MAX_LOOPS += 0 +\(default\)$/m);
  });
});
