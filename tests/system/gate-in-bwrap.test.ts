// `ralph --sandbox bwrap` run as root runs the verification gate's command inside the sandbox,
// as it runs the agent (issue 25, "the gate runs where the agent runs"): the test command has no
// capability and cannot write outside the project, while it still writes inside it and its
// result is read. Needs root and bubblewrap.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { bwrapFakeEnv, prepareSandboxProject, requireBwrap, requireRoot } from '../helpers/sandbox-tools.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => {
  requireRoot('the gate must be shown unable to write outside the project even as root');
  requireBwrap();
}, 300_000);

describe('ralph --sandbox bwrap as root: the verification gate', () => {
  it('runs inside the sandbox: no capability, no write outside the project', async () => {
    // Not under /tmp: the sandbox's own /tmp is private, so a write there would prove nothing.
    const outside = mkdtempSync(join('/var/tmp', 'ralph-gate-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const gateScript = [
      'mkdir -p .ralph/gate-probe',
      'grep CapEff /proc/self/status > .ralph/gate-probe/caps',
      `echo escaped > ${outside}/escape.txt 2>/dev/null; echo $? > .ralph/gate-probe/escape`,
      'echo "TAP version 13"; echo "ok 1 - probe"; echo "1..1"',
      '',
    ].join('\n');
    const project = tmpProject(
      ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="sh gate.sh"\n`, 'gate.sh': gateScript, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] one\n' }),
      { git: true },
    );
    const fake = withFakeClaude({
      calls: [{ tickFixPlan: 'all', writeFiles: { 'src/a.txt': 'a\n' }, statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }],
    });
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
    );
    const env = {
      ...bwrapFakeEnv(project, fake),
      ...prepareSandboxProject(project, fake),
    };

    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '2'], { cwd: project.dir, env });

    const probe = (name: string) =>
      existsSync(project.path(`.ralph/gate-probe/${name}`))
        ? readFileSync(project.path(`.ralph/gate-probe/${name}`), 'utf8').trim()
        : `(no ${name}: ${r.stderr.slice(-2000)})`;
    expect(probe('caps')).toMatch(/^CapEff:\s+0+$/);
    expect(probe('escape')).not.toBe('0');
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
    expect(r.stderr).toContain('Verification gate passed');
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});
