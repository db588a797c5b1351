// A sandbox asked for is a sandbox or nothing: sandboxes are not implemented in this version, so
// SANDBOX_PROVIDER set in .ralphrc or the environment is refused with exit 1 and a message that
// names the key, before any agent call — never a silent run on the host.

import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('SANDBOX_PROVIDER', () => {
  it.each([
    ['.ralphrc', 'SANDBOX_PROVIDER=docker\n', {}, '.ralphrc:'],
    ['the environment', '', { SANDBOX_PROVIDER: 'docker' }, 'env SANDBOX_PROVIDER'],
  ])('set in %s: exit 1, no agent call, the key named', async (_where, rc, env, source) => {
    const fake: FakeClaude = withFakeClaude({ calls: [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
    cleanups.push(() => fake.cleanup());
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${rc}`, '.ralph/fix_plan.md': '- [ ] a\n' }), { git: true });
    cleanups.push(() => project.cleanup());

    const result = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env: { ...fake.env, ...env } });

    expect(result.code, result.stderr).toBe(1);
    expect(fake.runs()).toHaveLength(0);
    expect(result.stderr).toMatch(/Error: SANDBOX_PROVIDER=docker \(.+\) asks for a sandbox, which this version of ralph does not have/);
    expect(result.stderr).toContain(source);
    expect(result.stderr).toContain('Refusing to run the agent on the host');
    expect(result.stderr).toContain('hint: remove SANDBOX_PROVIDER');
    expect(existsSync(project.path('a.txt'))).toBe(false);
  }, 30_000);
});
