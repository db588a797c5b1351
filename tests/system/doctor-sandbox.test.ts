// `ralph --doctor --sandbox …` through the real bin/ralph, with the real tools: bubblewrap runs
// here (so bwrap must be installed), and a docker whose daemon is not reachable fails the report
// (the docker CLI must be installed). System suite: npm test needs neither.

import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { prepareSandboxProject, requireBwrap, requireDockerCli } from '../helpers/sandbox-tools.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => {
  requireBwrap();
  requireDockerCli();
});

function project(files: Record<string, string>, git: boolean): TmpProject {
  const p = tmpProject(files, { git });
  cleanups.push(() => p.cleanup());
  return p;
}

function fake(): FakeClaude {
  const f = withFakeClaude({ calls: [] });
  cleanups.push(() => f.cleanup());
  return f;
}

/** The report line of one check. */
function line(stdout: string, name: string): string {
  return stdout.split('\n').find((l) => l.includes(` ${name}: `)) ?? `(no ${name} line)`;
}

describe('ralph --doctor with a sandbox', () => {
  it('checks the sandbox asked for: bwrap runs here; docker without a daemon fails the report', async () => {
    const p = project(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="npm test"\n` }), true);
    const f = fake();
    const env = { ...f.env, ...GIT_TEST_ENV, ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key' };
    // The fake reads its scenario even for --version; the probe runs it inside the sandbox.
    // Its state and log in the project, the one place it may write inside.
    const inProject = { FAKE_CLAUDE_STATE_DIR: p.path('.ralph/fake-state'), FAKE_CLAUDE_LOG: p.path('.ralph/fake-state/calls.jsonl') };
    mkdirSync(inProject.FAKE_CLAUDE_STATE_DIR, { recursive: true });
    const bwrap = await runCli('ralph', ['--doctor', '--sandbox', 'bwrap'], {
      cwd: p.dir,
      env: { ...env, ...inProject, SANDBOX_BWRAP_BIND: f.scenarioPath, ...prepareSandboxProject(p, f) },
    });
    expect(line(bwrap.stdout, 'sandbox (bwrap)')).toBe("[OK]   sandbox (bwrap): bubblewrap runs here, and the agent's --version runs inside it");
    expect(bwrap.code).toBe(0);

    const docker = await runCli('ralph', ['--doctor'], {
      cwd: p.dir,
      env: { ...env, SANDBOX_PROVIDER: 'docker', DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
    });
    expect(line(docker.stdout, 'sandbox (docker)')).toMatch(
      /^\[FAIL\] sandbox \(docker\): Docker daemon is not reachable .*: ralph would refuse to run — fix: /,
    );
    expect(docker.code).toBe(1);
    expect(f.runs()).toHaveLength(0);
  });
});
