// A sandbox asked for is a sandbox or nothing: a provider that is unknown, refused (E2B) or not
// available here, from a flag, the environment or .ralphrc, exits 1 before any agent call with a
// message that says what to do — never a silent run on the host. Bad sandbox flags are refused
// the same way, and so are sub-flags given without --sandbox.

import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

async function runRalph(
  args: string[],
  rc = '',
  env: NodeJS.ProcessEnv | ((fake: FakeClaude) => NodeJS.ProcessEnv) = {},
): Promise<{ result: CliResult; fake: FakeClaude; project: TmpProject }> {
  const fake = withFakeClaude({ calls: [{ writeFiles: { 'a.txt': 'a' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } }] });
  cleanups.push(() => fake.cleanup());
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${rc}`, '.ralph/fix_plan.md': '- [ ] a\n' }), { git: true });
  cleanups.push(() => project.cleanup());
  const result = await runCli('ralph', ['--max-loops', '1', ...args], {
    cwd: project.dir,
    env: { ...fake.env, ...(typeof env === 'function' ? env(fake) : env) },
  });
  return { result, fake, project };
}

describe('SANDBOX_PROVIDER', () => {
  it.each([
    ['e2b in .ralphrc', 'SANDBOX_PROVIDER=e2b\n', {}, '.ralphrc:', 'the E2B cloud sandbox is not supported by this version of ralph'],
    ['e2b in the environment', '', { SANDBOX_PROVIDER: 'e2b' }, 'env SANDBOX_PROVIDER', 'the E2B cloud sandbox is not supported'],
    ['an unknown one in .ralphrc', 'SANDBOX_PROVIDER=firecracker\n', {}, '.ralphrc:', "unknown sandbox provider 'firecracker' (supported: docker, bwrap)"],
    ['docker with a bad memory limit', 'SANDBOX_PROVIDER=docker\nSANDBOX_DOCKER_MEMORY=lots\n', {}, '.ralphrc:', "invalid sandbox memory limit 'lots'"],
  ])(
    '%s: exit 1, no agent call, the key named',
    async (_what, rc, env, source, message) => {
      const { result, fake, project } = await runRalph([], rc, env);
      expect(result.code, result.stderr).toBe(1);
      expect(fake.runs()).toHaveLength(0);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain(source);
      expect(result.stderr).toContain('Refusing to run the agent on the host');
      expect(existsSync(project.path('a.txt'))).toBe(false);
    },
    30_000,
  );

  it('bwrap that cannot create its namespaces: exit 1 before any agent call, saying what to enable', async () => {
    // A bwrap that fails as it does where user namespaces are off.
    const bin = mkdtempSync(join(tmpdir(), 'fake-bwrap-'));
    cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
    );
    chmodSync(join(bin, 'bwrap'), 0o755);
    const { result, fake: agent } = await runRalph(['--sandbox', 'bwrap'], '', (fake) => ({ PATH: [bin, fake.env.PATH].join(delimiter) }));
    expect(result.code, result.stderr).toBe(1);
    expect(agent.runs()).toHaveLength(0);
    expect(result.stderr).toContain('Sandbox bwrap cannot run here: bwrap: No permissions to creating new namespace');
    expect(result.stderr).toContain('kernel.unprivileged_userns_clone=1');
  }, 30_000);
});

describe('--sandbox flags', () => {
  it.each([
    [['--sandbox', 'e2b'], '--sandbox: the E2B cloud sandbox is not supported'],
    [['--sandbox', 'daytona'], "--sandbox: unknown sandbox provider 'daytona'"],
    [['--sandbox-image', 'x'], '--sandbox-image requires --sandbox docker'],
    [['--sandbox-network', 'none'], '--sandbox-network requires --sandbox docker or --sandbox bwrap'],
    [['--sandbox', 'docker', '--sandbox-memory', '4 GB'], "--sandbox-memory: invalid sandbox memory limit '4 GB'"],
    [['--sandbox', 'docker', '--sandbox-cpus', 'two'], "--sandbox-cpus: invalid sandbox cpus limit 'two'"],
    [['--sandbox', 'docker', '--sandbox-network', 'nat'], "--sandbox-network: invalid sandbox network mode 'nat'"],
    [['--sandbox', 'docker', '--sandbox-image', 'my image'], "--sandbox-image: invalid sandbox image 'my image'"],
    [['--sandbox', 'bwrap', '--sandbox-memory', '1g'], '--sandbox-memory applies to --sandbox docker only'],
  ])(
    '%j: exit 1 with the reason, no agent call',
    async (args, message) => {
      const { result, fake } = await runRalph(args);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(message);
      expect(fake.runs()).toHaveLength(0);
    },
    30_000,
  );
});
