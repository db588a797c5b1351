// ralph run as root with no sandbox never runs the agent, nor the gate's commands, as root: on a
// project an ordinary user owns they run as that user (and a setuid file the agent made loses
// its bit); a root-owned project is refused before the first call, unless --allow-root-agent.
// Needs root.

import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCallLog, withFakeClaude, type FakeScenario } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { prepareSandboxProject, requireRoot, SANDBOX_TEST_OWNER } from '../helpers/sandbox-tools.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';
import { doesItem, parallelProject } from '../e2e/parallel/parallel-helpers.js';

const cleanups = useCleanups();
beforeAll(() => requireRoot('ralph must run as root to show whom it runs the agent as'));

const GATE = ['id -u > .ralph/probe/gate-uid', 'echo "TAP version 13"; echo "ok 1 - probe"; echo "1..1"', ''].join('\n');

const SCENARIO: FakeScenario = {
  calls: [
    {
      steps: [
        { tool: 'Bash', input: { command: 'id -u > .ralph/probe/agent-uid' }, exec: true },
        { tool: 'Bash', input: { command: 'cp /bin/true planted && chmod 4755 planted' }, exec: true },
      ],
      tickFixPlan: 'all',
      statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
    },
  ],
};

function setUp(): { project: TmpProject; fake: ReturnType<typeof withFakeClaude>; env: Record<string, string> } {
  const project = tmpProject(
    ralphProjectTree({
      '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Bash"\nTEST_COMMAND="sh gate.sh"\n`,
      'gate.sh': GATE,
      '.ralph/fix_plan.md': '# Fix Plan\n- [ ] one\n',
    }),
    { git: true },
  );
  mkdirSync(project.path('.ralph/probe'), { recursive: true });
  const fake = withFakeClaude(SCENARIO);
  cleanups.push(
    () => project.cleanup(),
    () => fake.cleanup(),
  );
  const env = {
    ...fake.env,
    ...GIT_TEST_ENV,
    FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
    FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
    // The suite lets every ralph run its agent as root (tests/helpers/child-env.ts): not here.
    ALLOW_ROOT_AGENT: '',
  };
  return { project, fake, env };
}

function probe(project: TmpProject, name: string, stderr: string): string {
  const path = project.path(`.ralph/probe/${name}`);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : `(no ${name}: ${stderr.slice(-2000)})`;
}

describe('ralph as root, no sandbox', () => {
  it("runs the agent and the gate as the project's owner, and clears the setuid bit the agent set", async () => {
    const { project, fake, env } = setUp();
    const ownerEnv = { ...env, ...prepareSandboxProject(project, fake) };
    const r = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: ownerEnv });
    expect(probe(project, 'agent-uid', r.stderr)).toBe(String(SANDBOX_TEST_OWNER));
    const prompted = readCallLog(project.path('.ralph/fake-state/calls.jsonl')).filter((call) => call.prompt !== undefined);
    expect(prompted.map((call) => call.uid)).toEqual([SANDBOX_TEST_OWNER]);
    expect(probe(project, 'gate-uid', r.stderr)).toBe(String(SANDBOX_TEST_OWNER));
    expect(statSync(project.path('planted')).mode & 0o6000).toBe(0);
    expect(r.stderr).toContain(`the agent and the gate's commands run as uid ${SANDBOX_TEST_OWNER} (the project's owner)`);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("clears the setuid bit a gate's command set: the gate runs the agent's code, and the run may end with it", async () => {
    const { project, fake, env } = setUp();
    // The agent's test script, run by the gate at the completion claim that ends the run.
    writeFileSync(project.path('gate.sh'), `cp /bin/true planted-by-gate && chmod 6755 planted-by-gate\n${GATE}`);
    const ownerEnv = { ...env, ...prepareSandboxProject(project, fake) };
    const r = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: ownerEnv });
    expect(probe(project, 'gate-uid', r.stderr)).toBe(String(SANDBOX_TEST_OWNER));
    expect(statSync(project.path('planted-by-gate')).mode & 0o6000).toBe(0);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("ends what the agent and the gate's command left running in a session of their own before the next call", async () => {
    const { project, fake, env } = setUp();
    // Each starts a process that leaves its process group; the gate fails until the second loop.
    const daemon = (name: string) => `[ -f .ralph/probe/${name} ] || { setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $! > .ralph/probe/${name}; }`;
    writeFileSync(project.path('gate.sh'), `${daemon('gate-daemon')}\n[ -f .ralph/probe/second ] || exit 1\n${GATE}`);
    // Killed, one may wait as a zombie for the machine's init to reap it: gone all the same.
    const probeDaemon = (name: string) =>
      `if grep -qs "^State:[^Z]*$" "/proc/$(cat .ralph/probe/${name})/status"; then echo alive; else echo gone; fi > .ralph/probe/${name}-state`;
    fake.setScenario({
      calls: [
        {
          writeFiles: { 'one.txt': 'one\n' },
          steps: [{ tool: 'Bash', input: { command: daemon('agent-daemon') }, exec: true }],
          tickFixPlan: 'all',
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
        {
          writeFiles: { 'two.txt': 'two\n' },
          steps: [{ tool: 'Bash', input: { command: `${probeDaemon('agent-daemon')}; ${probeDaemon('gate-daemon')}; touch .ralph/probe/second` }, exec: true }],
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
      ],
    });
    const ownerEnv = { ...env, ...prepareSandboxProject(project, fake) };
    const r = await runCli('ralph', ['--max-loops', '3'], { cwd: project.dir, env: ownerEnv });
    const pids = ['agent-daemon', 'gate-daemon'].map((name) => Number(probe(project, name, r.stderr)));
    cleanups.push(() => {
      for (const pid of pids) if (pid > 0 && existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
    });
    expect(
      pids.every((pid) => pid > 0),
      r.stderr,
    ).toBe(true);
    expect(probe(project, 'agent-daemon-state', r.stderr)).toBe('gone');
    expect(probe(project, 'gate-daemon-state', r.stderr)).toBe('gone');
  }, 120_000);

  it('hands back to the owner what ralph wrote in the project as root before each call (its backups), so the agent can commit', async () => {
    const { project, fake, env } = setUp();
    // Loop 1 ends not done, so ralph (root) makes its backup commit before loop 2; the agent of
    // loop 2 lists what root still owns in .git and commits its own work there.
    fake.setScenario({
      calls: [
        { writeFiles: { 'one.txt': 'one\n' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
        {
          sideEffectsFirst: true,
          writeFiles: { 'two.txt': 'two\n' },
          steps: [
            { tool: 'Bash', input: { command: 'find .git -uid 0 > .ralph/probe/root-owned' }, exec: true },
            { tool: 'Bash', input: { command: 'git add two.txt && git commit -qm two; echo $? > .ralph/probe/commit' }, exec: true },
          ],
          tickFixPlan: 'all',
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
      ],
    });
    const ownerEnv = { ...env, ...prepareSandboxProject(project, fake) };
    const r = await runCli('ralph', ['--backup', '--max-loops', '3'], { cwd: project.dir, env: ownerEnv });
    expect(probe(project, 'root-owned', r.stderr)).toBe('');
    expect(probe(project, 'commit', r.stderr)).toBe('0');
  }, 120_000);

  it('refuses a root-owned project before any call, naming what to do', async () => {
    const { project, env } = setUp();
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env });
    expect(r.stderr).toContain(`ralph runs as root and the project ${project.dir} belongs to root: ralph never runs the agent as root`);
    expect(r.stderr).toContain('--allow-root-agent');
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).not.toBe(0);
    // Only --version was asked (from the fake's own folder, outside the project): no prompt was sent.
    expect(readCallLog(project.path('.ralph/fake-state/calls.jsonl')).filter((call) => call.prompt !== undefined)).toEqual([]);
    expect(existsSync(project.path('.ralph/probe/agent-uid'))).toBe(false);
    const doctor = await runCli('ralph', ['--doctor'], { cwd: project.dir, env });
    expect(doctor.stdout).toContain(`[FAIL] agent user: ralph runs as root and the project ${project.dir} belongs to root`);
    const allowed = await runCli('ralph', ['--doctor', '--allow-root-agent'], { cwd: project.dir, env });
    expect(allowed.stdout).toContain("[WARN] agent user: the agent and the gate's commands run as root; ALLOW_ROOT_AGENT=true (--allow-root-agent)");
  }, 60_000);

  it('with --allow-root-agent runs the agent as root on a root-owned project', async () => {
    const { project, env } = setUp();
    const r = await runCli('ralph', ['--allow-root-agent', '--max-loops', '2'], { cwd: project.dir, env });
    expect(probe(project, 'agent-uid', r.stderr)).toBe('0');
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});

describe('ralph --parallel as root, no sandbox', () => {
  it("runs each unit's agent as the project's owner, in a worktree given to that owner, and merges the units", async () => {
    // Each agent records whom it runs as in its unit's worktree (the file is merged with the unit).
    const records = (item: string, file: string) => ({
      ...doesItem(item, { [file]: `${file}\n` }),
      steps: [{ tool: 'Bash', input: { command: `id -u > ${file}.uid` }, exec: true }],
    });
    const p = parallelProject(
      ['Add alpha', 'Add beta'],
      { calls: [records('Add alpha', 'a.txt'), records('Add beta', 'b.txt')] },
      { rc: 'ALLOWED_TOOLS="Write,Read,Bash"\n' },
    );
    cleanups.push(() => p.cleanup());
    const env = {
      ...p.env,
      // One state for both units' agents, in the project, open to its owner.
      FAKE_CLAUDE_STATE_DIR: p.project.path('.ralph/fake-state'),
      FAKE_CLAUDE_LOG: p.project.path('.ralph/fake-state/calls.jsonl'),
      ALLOW_ROOT_AGENT: '',
      ...prepareSandboxProject(p.project, p.claude, p.project.path('.ralph/fake-state')),
      // ralph (root) runs git in the worktrees too, which the owner owns now.
      GIT_CONFIG_PARAMETERS: "'safe.directory=*'",
    };
    chmodSync(p.claude.scenarioPath, 0o644);
    const run = await runCli('ralph', ['--parallel', '2'], { cwd: p.project.dir, env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const git = (...args: string[]) => p.project.git('-c', 'safe.directory=*', ...args);
    expect(git('show', 'HEAD:a.txt.uid').trim()).toBe(String(SANDBOX_TEST_OWNER));
    expect(git('show', 'HEAD:b.txt.uid').trim()).toBe(String(SANDBOX_TEST_OWNER));
  }, 180_000);
});
