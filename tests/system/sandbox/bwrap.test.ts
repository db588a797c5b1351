// `ralph --sandbox bwrap` with the real bubblewrap: the agent works the plan to the end inside
// it, cannot write outside the project, cannot see the real $HOME, and a daemon it forks dies
// with the sandbox. The fake agent's tools run for real (Bash `exec`), inside bwrap.

import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE_DIR, readCallLog, withFakeClaude, type FakeCall, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { expectGuardedFilesUntouched, GUARDED_FILES_ATTACK, prepareSandboxProject, processesWithCmdline, requireBwrap } from '../../helpers/sandbox-tools.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => requireBwrap());

interface BwrapRun {
  project: TmpProject;
  fake: FakeClaude;
  /** The fake's invocations that got a prompt, from its log inside the project. */
  runs(): FakeCall[];
  outside: string;
  secret: string;
  code: number | null;
  stderr: string;
}

/** A project whose fake agent keeps its call log inside the project (the only place it may write). */
async function runInBwrap(scenario: (outside: string) => FakeScenario, plan: string): Promise<BwrapRun> {
  const project = tmpProject(
    ralphProjectTree({
      '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS="Read,Write,Bash"\n`,
      '.ralph/fix_plan.md': plan,
    }),
    { git: true },
  );
  const fake = withFakeClaude();
  const outside = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
  // Open to all, so a write there fails for being read-only, whoever the agent runs as.
  chmodSync(outside, 0o755);
  fake.setScenario(scenario(outside));
  cleanups.push(
    () => project.cleanup(),
    () => fake.cleanup(),
    () => rmSync(outside, { recursive: true, force: true }),
  );
  const secret = `planted-secret-${process.pid}-${Date.now()}`;
  writeFileSync(join(fake.home, 'secret.txt'), `${secret}\n`);
  const env = {
    ...fake.env,
    ...GIT_TEST_ENV,
    FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
    FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
    // The fake's bin dir and scenario live in the test's temp dir, behind the sandbox's private
    // /tmp, and so may the fake's own files (a checkout under /tmp); so does `outside`, shown
    // read-only to prove the write fails there.
    SANDBOX_BWRAP_BIND: [fake.binDir, FAKE_CLAUDE_DIR, fake.scenarioPath, outside].join(','),
    ...prepareSandboxProject(project, fake),
  };
  const run = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '5'], { cwd: project.dir, env });
  const runs = () => readCallLog(env.FAKE_CLAUDE_LOG).filter((call) => call.prompt !== undefined);
  return { project, fake, runs, outside, secret, code: run.code, stderr: run.stderr };
}

function outputLogs(project: TmpProject): string {
  const dir = project.path('.ralph/logs');
  return readdirSync(dir)
    .filter((name) => name.startsWith('claude_output_'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

describe('ralph --sandbox bwrap', () => {
  it('runs a 2-item plan to plan_complete inside the sandbox; writes outside the project fail and the real $HOME is not visible', async () => {
    const r = await runInBwrap(
      (outside) => ({
        calls: [
          {
            steps: [
              { tool: 'Bash', input: { command: `cat "$HOME/secret.txt"` }, exec: true },
              { tool: 'Bash', input: { command: `echo escaped > ${outside}/escape.txt` }, exec: true },
            ],
            writeFiles: { 'src/one.txt': 'one\n' } as Record<string, string>,
            tickFixPlan: 1,
            statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
          },
          { writeFiles: { 'src/two.txt': 'two\n' } as Record<string, string>, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } },
        ],
      }),
      '- [ ] one\n- [ ] two\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.runs()).toHaveLength(2);
    expect(readFileSync(r.project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('exit reason: plan_complete');
    expect(JSON.parse(readFileSync(r.project.path('.ralph/status.json'), 'utf8')).sandbox).toMatchObject({ provider: 'bwrap' });
    const logs = outputLogs(r.project);
    // The planted file was there on the host, under the same $HOME path the agent saw.
    expect(existsSync(join(r.fake.home, 'secret.txt'))).toBe(true);
    expect(logs).not.toContain(r.secret);
    expect(logs).toContain('No such file or directory');
    expect(existsSync(join(r.outside, 'escape.txt'))).toBe(false);
    expect(logs).toContain('Read-only file system');
  }, 60_000);

  it('mounts the guarded files read-only: the agent can change none of them, so nothing is undone', async () => {
    const r = await runInBwrap(() => ({ calls: [GUARDED_FILES_ATTACK] }), '- [ ] one\n');
    expect(r.code, r.stderr).toBe(0);
    expectGuardedFilesUntouched(r.project, outputLogs(r.project), r.stderr);
  }, 60_000);

  it('kills a daemon the agent forked out of its process group when the sandbox ends', async () => {
    const marker = 900_000_000 + (process.pid % 1000) * 1000 + Math.floor(Math.random() * 1000);
    cleanups.push(() => {
      for (const pid of processesWithCmdline(String(marker))) process.kill(pid, 'SIGKILL');
    });
    const r = await runInBwrap(
      () => ({
        calls: [
          {
            spawnChild: { setsid: true, lifetimeMs: marker },
            writeFiles: { 'src/done.txt': 'done\n' },
            tickFixPlan: 'all',
            statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
          },
        ],
      }),
      '- [ ] one\n',
    );
    expect(r.code, r.stderr).toBe(0);
    // The daemon really ran (the fake logs its pid once it is up) ...
    expect(r.runs()[0]?.childPid).toBeGreaterThan(0);
    // ... and is gone with the sandbox's pid namespace.
    expect(processesWithCmdline(String(marker))).toEqual([]);
  }, 60_000);
});
