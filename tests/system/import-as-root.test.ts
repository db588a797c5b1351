// ralph-import run as root never runs its conversion agent as root: in a folder an ordinary user
// owns it runs as that user (the project it creates is given to them, and a setuid file the agent
// made loses its bit); in a folder root owns it is refused before any call, unless
// --allow-root-agent. Needs root.

import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCallLog, withFakeClaude, type FakeCallScript, type FakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { runCli } from '../helpers/run-cli.js';
import { prepareSandboxProject, requireRoot, SANDBOX_TEST_OWNER } from '../helpers/sandbox-tools.js';
import { GIT_TEST_ENV, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';
import { withFakeTaskClis } from '../integration/bootstrap/fake-task-clis.js';

const cleanups = useCleanups();
beforeAll(() => requireRoot('ralph-import must run as root to show whom it runs the agent as'));

/** A setuid program the test's ordinary user owns, outside the workspace: `cp -p` keeps its bit. */
function setuidSource(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-suid-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const file = join(dir, 'suid');
  writeFileSync(file, '#!/bin/sh\n');
  chownSync(file, SANDBOX_TEST_OWNER, SANDBOX_TEST_OWNER);
  chmodSync(file, 0o4755);
  return file;
}

function scenario(source: string): FakeScenario {
  const call: FakeCallScript = {
    steps: [{ tool: 'Bash', input: { command: `cp -p ${source} planted` }, exec: true }],
    writeFiles: {
      '.ralph/PROMPT.md': '# Ralph Development Instructions\nAgent-written prompt.\n',
      '.ralph/fix_plan.md': '# Ralph Fix Plan\n- [ ] Agent-written task\n',
      '.ralph/specs/requirements.md': '# Requirements\nAgent-written spec.\n',
    },
    resultText: 'Converted.',
  };
  return { calls: [call, call] };
}

function setUp(): { workspace: TmpProject; fake: FakeClaude; env: Record<string, string>; log: string } {
  const workspace = tmpProject({ 'prd.md': '# Todo\n- [ ] add items\n' });
  const fake = withFakeClaude(scenario(setuidSource()));
  cleanups.push(
    () => workspace.cleanup(),
    () => fake.cleanup(),
  );
  const log = workspace.path('.fake-state/calls.jsonl');
  const env = {
    ...fake.env,
    ...GIT_TEST_ENV,
    FAKE_CLAUDE_STATE_DIR: workspace.path('.fake-state'),
    FAKE_CLAUDE_LOG: log,
    // The suite lets every ralph run its agent as root (tests/helpers/child-env.ts): not here.
    ALLOW_ROOT_AGENT: '',
  };
  return { workspace, fake, env, log };
}

const prompted = (log: string) => readCallLog(log).filter((call) => call.prompt !== undefined);

describe('ralph-import as root', () => {
  it("runs the conversion agent as the folder's owner, in the project given to them, and clears the setuid bit it set", async () => {
    const { workspace, fake, env, log } = setUp();
    const ownerEnv = { ...env, ...prepareSandboxProject(workspace, fake, workspace.path('.fake-state')) };
    const r = await runCli('ralph-import', ['prd.md', 'app'], { cwd: workspace.dir, env: ownerEnv });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(prompted(log).map((call) => call.uid)).toEqual([SANDBOX_TEST_OWNER]);
    expect(statSync(workspace.path('app/.ralph/PROMPT.md')).uid).toBe(SANDBOX_TEST_OWNER);
    expect(statSync(workspace.path('app/.ralph')).uid).toBe(SANDBOX_TEST_OWNER);
    expect(statSync(workspace.path('app/planted')).mode & 0o6000).toBe(0);
    expect(r.stdout).toContain(`run as uid ${SANDBOX_TEST_OWNER}`);
  }, 120_000);

  it('refuses a folder root owns before any call, naming what to do, and creates no project', async () => {
    const { workspace, env, log } = setUp();
    const r = await runCli('ralph-import', ['prd.md', 'app'], { cwd: workspace.dir, env });
    expect(r.stderr).toContain(`ralph runs as root and the project ${workspace.dir} belongs to root: ralph never runs the agent as root`);
    expect(r.stderr).toContain('--allow-root-agent');
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(1);
    expect(prompted(log)).toEqual([]);
    expect(existsSync(workspace.path('app'))).toBe(false);
  }, 60_000);

  it('refuses a GitHub issue import in a folder root owns before the plan call', async () => {
    const { workspace, env, log } = setUp();
    const clis = withFakeTaskClis({ gh: { issues: [{ number: 3, title: 'Add CSV export', body: 'thin' }] } });
    cleanups.push(() => clis.cleanup());
    const r = await runCli('ralph-import', ['--github-issue', '3', '--generate-plan'], {
      cwd: workspace.dir,
      env: { ...clis.env, ...env, PATH: [clis.binDir, env.PATH].join(delimiter) },
    });
    expect(r.stderr).toContain('ralph never runs the agent as root');
    expect(r.code).toBe(1);
    expect(prompted(log)).toEqual([]);
    expect(existsSync(workspace.path('add-csv-export'))).toBe(false);
  }, 60_000);

  it('with --allow-root-agent (or ALLOW_ROOT_AGENT=true) runs the agent as root in a folder root owns', async () => {
    const { workspace, env, log } = setUp();
    const flagged = await runCli('ralph-import', ['--allow-root-agent', 'prd.md', 'app'], { cwd: workspace.dir, env });
    expect(flagged.code, flagged.stdout + flagged.stderr).toBe(0);
    const byEnv = await runCli('ralph-import', ['prd.md', 'app2'], { cwd: workspace.dir, env: { ...env, ALLOW_ROOT_AGENT: 'true' } });
    expect(byEnv.code, byEnv.stdout + byEnv.stderr).toBe(0);
    expect(prompted(log).map((call) => call.uid)).toEqual([0, 0]);
  }, 120_000);
});
