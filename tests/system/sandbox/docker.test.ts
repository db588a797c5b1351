// `ralph --sandbox docker` with a real daemon and an image imported offline (the host's node,
// git and the fake agent, tests/helpers/sandbox-tools.ts). ralph runs as an ordinary user in the
// docker group, as it would on a workstation: the container then runs as that uid. The fake in
// the image reads its scenario from and logs into the project (.ralph/fake-state/).

import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCallLog, withFakeClaude, type FakeCall, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult, type RunCliOptions } from '../../helpers/run-cli.js';
import {
  allCommandLines,
  docker,
  ensureTestImage,
  expectGuardedFilesUntouched,
  GUARDED_FILES_ATTACK,
  readablePackageCopy,
  requireDockerDaemon,
  requireRoot,
} from '../../helpers/sandbox-tools.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { SANDBOX_PIDS_LIMIT } from '../../../lib/sandbox/docker-sandbox.js';
import { useCleanups } from '../../helpers/cleanups.js';

const USER = 1000;
const DOCKER_SECRETS = {
  GH_TOKEN: 'ghp_docker_test',
  AWS_SECRET_ACCESS_KEY: 'aws-docker-test',
  OPENAI_API_KEY: 'sk-openai-docker-test',
  NPM_TOKEN: 'npm_docker_test',
  DB_PASSWORD: 'db-docker-test',
};
let image = '';
let dockerGid = 0;
let packageCopy: ReturnType<typeof readablePackageCopy> | undefined;
beforeAll(() => {
  requireRoot('they run ralph as an ordinary user in the docker group');
  requireDockerDaemon();
  packageCopy = readablePackageCopy();
  image = ensureTestImage();
  const group = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'docker');
  dockerGid = Number(group?.[2] ?? 0);
}, 600_000);
// The image is the test's own (ralph-sandbox-test:<hash>), made in a few seconds: not kept.
afterAll(() => {
  if (image) docker('image', 'rm', '-f', image);
  packageCopy?.cleanup();
});

const cleanups = useCleanups();

interface DockerProject {
  project: TmpProject;
  fake: FakeClaude;
  env: NodeJS.ProcessEnv;
  runs(): FakeCall[];
}

function chownTree(path: string): void {
  chownSync(path, USER, dockerGid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child);
    else if (!entry.isSymbolicLink()) chownSync(child, USER, dockerGid);
  }
}

function dockerProject(scenario: FakeScenario, plan: string, extraEnv: NodeJS.ProcessEnv = {}): DockerProject {
  const project = tmpProject(
    ralphProjectTree({
      '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="node --version"\nALLOWED_TOOLS="Read,Write,Bash"\n`,
      '.ralph/fix_plan.md': plan,
    }),
    { git: true },
  );
  const fake = withFakeClaude();
  cleanups.push(
    () => project.cleanup(),
    () => fake.cleanup(),
  );
  mkdirSync(project.path('.ralph/fake-state'), { recursive: true });
  writeFileSync(project.path('.ralph/fake-state/scenario.json'), JSON.stringify(scenario));
  // ralph runs as USER here: its ledger goes in a state home that user owns, not the test file's.
  const stateHome = join(fake.root, 'state-home');
  mkdirSync(stateHome, { recursive: true });
  chownTree(project.dir);
  chownTree(fake.root);
  const env = { ...fake.env, ...GIT_TEST_ENV, SANDBOX_DOCKER_IMAGE: image, XDG_STATE_HOME: stateHome, ...extraEnv };
  const logPath = project.path('.ralph/fake-state/calls.jsonl');
  return { project, fake, env, runs: () => readCallLog(logPath).filter((call) => call.prompt !== undefined) };
}

function ralphAs(p: DockerProject, args: string[], onSpawn?: RunCliOptions['onSpawn']): Promise<CliResult> {
  return runCli('ralph', args, { cwd: p.project.dir, env: p.env, uid: USER, gid: dockerGid, onSpawn, packageRoot: packageCopy!.root });
}

function outputLogs(project: TmpProject): string {
  const dir = project.path('.ralph/logs');
  return readdirSync(dir)
    .filter((name) => name.startsWith('claude_output_'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

/** Resolves once `ready()` holds (checked every 100 ms; the test's timeout bounds the wait). */
async function waitFor(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 100));
}

const containersOf = (pid: number) => docker('ps', '-a', '--filter', `name=ralph-sandbox-${pid}-`, '--format', '{{.Names}}').stdout.trim();

describe('ralph --sandbox docker', () => {
  it('runs a 2-item plan to plan_complete inside the container, where the real $HOME is not visible', async () => {
    const secretHome = withFakeClaude();
    cleanups.push(() => secretHome.cleanup());
    const p = dockerProject(
      {
        calls: [
          {
            steps: [{ tool: 'Read', input: { file_path: '__SECRET__' } }],
            writeFiles: { 'src/one.txt': 'one\n' },
            tickFixPlan: 1,
            statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
          },
          { writeFiles: { 'src/two.txt': 'two\n' }, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } },
        ],
      },
      '- [ ] one\n- [ ] two\n',
    );
    const secret = `planted-secret-${process.pid}-${Date.now()}`;
    const secretPath = join(p.fake.home, 'secret.txt');
    writeFileSync(secretPath, `${secret}\n`);
    chownSync(secretPath, USER, dockerGid);
    const scenarioPath = p.project.path('.ralph/fake-state/scenario.json');
    writeFileSync(scenarioPath, readFileSync(scenarioPath, 'utf8').replace('__SECRET__', secretPath));

    let pid = 0;
    const r = await ralphAs(p, ['--sandbox', 'docker', '--sandbox-memory', '512m', '--max-loops', '5'], (child) => (pid = child.pid!));
    expect(r.code, r.stderr).toBe(0);
    const runs = p.runs();
    expect(runs).toHaveLength(2);
    // Inside the container: another host name, the user ralph runs as (not the host's root).
    expect(runs[0]!.hostname).not.toBe(hostname());
    expect(runs.map((run) => run.uid)).toEqual([USER, USER]);
    expect(runs[0]!.cwd).toBe('/workspace');
    expect(readFileSync(p.project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('exit reason: plan_complete');
    const logs = outputLogs(p.project);
    expect(logs).not.toContain(secret);
    expect(logs).toContain('File does not exist');
    const state = JSON.parse(readFileSync(p.project.path('.ralph/.docker_sandbox_state'), 'utf8'));
    expect(state).toMatchObject({ provider: 'docker', image, memory: '512m', status: 'stopped', container_id: '' });
    expect(containersOf(pid)).toBe('');
  }, 120_000);

  it('keeps the API key out of every argv, and leaves no container behind after SIGTERM', async () => {
    const key = `sk-ant-test-${process.pid}-${Date.now()}`;
    const p = dockerProject({ calls: [{ hang: 'afterInit', hangMaxMs: 60_000 }] }, '- [ ] one\n', { ANTHROPIC_API_KEY: key });
    let pid = 0;
    let seenRunning = '';
    let argvWithKey: string[] = [];
    let dashboard = '';
    let containerId = '';
    const r = await ralphAs(p, ['--sandbox', 'docker'], (child) => {
      pid = child.pid!;
      void (async () => {
        await waitFor(() => readCallLog(p.project.path('.ralph/fake-state/calls.jsonl')).some((call) => call.prompt !== undefined));
        seenRunning = containersOf(pid);
        argvWithKey = allCommandLines().filter((line) => line.includes(key));
        containerId = docker('ps', '--filter', `name=ralph-sandbox-${pid}-`, '--format', '{{.ID}}').stdout.trim();
        dashboard = (await runCli('ralph-monitor', ['--once'], { cwd: p.project.dir, env: p.env })).stdout;
        child.kill('SIGTERM');
      })();
    });
    expect(r.code, r.stderr).toBe(143);
    // The agent ran in the run's container with the key (the fake logs it only as "set") ...
    expect(seenRunning).toMatch(new RegExp(`^ralph-sandbox-${pid}-\\d+-[0-9a-f]{8}$`));
    expect(p.runs()[0]!.env.ANTHROPIC_API_KEY).toBe('set');
    // ... which no process had in its argv.
    expect(argvWithKey).toEqual([]);
    // status.json carries the container, and the monitor shows it.
    expect(containerId).toMatch(/^[0-9a-f]{12}$/);
    expect(dashboard).toMatch(new RegExp(`Sandbox: docker ${containerId}[0-9a-f]* running`));
    expect(containersOf(pid)).toBe('');
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`ralph-sandbox-${pid}-`))).toEqual([]);
  }, 120_000);

  it('mounts the guarded files read-only: the agent can change none of them, so nothing is undone', async () => {
    const p = dockerProject({ calls: [GUARDED_FILES_ATTACK] }, '- [ ] one\n');
    const r = await ralphAs(p, ['--sandbox', 'docker']);
    expect(r.code, r.stderr).toBe(0);
    expectGuardedFilesUntouched(p.project, outputLogs(p.project), r.stderr);
  }, 120_000);

  it('removes the container of a ralph killed with -9 (the old agent still running in it) as soon as ralph is gone', async () => {
    const p = dockerProject(
      {
        calls: [
          { hang: 'afterInit', hangMaxMs: 60_000 },
          { writeFiles: { 'src/done.txt': 'done\n' }, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } },
        ],
      },
      '- [ ] one\n',
    );
    let pid = 0;
    let orphan = '';
    const killed = await ralphAs(p, ['--sandbox', 'docker'], (child) => {
      pid = child.pid!;
      void (async () => {
        await waitFor(() => p.runs().length >= 1);
        orphan = containersOf(pid);
        child.kill('SIGKILL');
      })();
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    cleanups.push(() => {
      if (orphan) docker('rm', '-f', orphan);
    });
    // The dead ralph's container was up, with the hanging agent in it; its watchdog removes it,
    // and the private home with the copied credentials, without waiting for another ralph.
    expect(orphan).toMatch(new RegExp(`^ralph-sandbox-${pid}-\\d+-[0-9a-f]{8}$`));
    await waitFor(() => containersOf(pid) === '');
    await waitFor(() => !readdirSync(tmpdir()).some((name) => name.startsWith(`ralph-sandbox-${pid}-`)));
    const next = await ralphAs(p, ['--sandbox', 'docker']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('left by a ralph that is no longer running');
  }, 120_000);

  it('after a call, starts a container that died during it again, makes a new one for a removed container, and finishes the plan', async () => {
    const hang = { hang: 'afterInit', hangMaxMs: 60_000 } as const;
    const p = dockerProject(
      {
        calls: [
          hang,
          hang,
          // Slow to answer: its container is looked up while the call runs, not after the run ended and removed it.
          {
            delayBeforeFirstLineMs: 3000,
            writeFiles: { 'src/done.txt': 'done\n' },
            tickFixPlan: 'all',
            statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
          },
        ],
      },
      '- [ ] one\n',
    );
    const started = (n: number) => () => p.runs().length >= n;
    const containerOf = (pid: number) => docker('ps', '--filter', `name=ralph-sandbox-${pid}-`, '--format', '{{.ID}}').stdout.trim();
    const ids: string[] = [];
    let pid = 0;
    const r = await ralphAs(p, ['--sandbox', 'docker', '--max-loops', '5'], (child) => {
      pid = child.pid!;
      void (async () => {
        await waitFor(started(1));
        ids.push(containerOf(pid));
        docker('kill', ids[0]!); // what the kernel's OOM killer or a daemon restart does
        await waitFor(started(2));
        ids.push(containerOf(pid));
        docker('rm', '-f', ids[1]!); // someone's `docker rm -f` or a `docker system prune`
        await waitFor(started(3));
        ids.push(containerOf(pid));
      })();
    });
    expect(r.code, r.stderr).toBe(0);
    expect(p.runs()).toHaveLength(3);
    // After each call the container is restarted: the killed one came back, the removed one was replaced.
    expect(r.stderr).toContain(`Sandbox container ${ids[1]!.slice(0, 12)} could not be restarted after the call: removed, a new one comes for the next call`);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toMatch(/^[0-9a-f]{12}$/);
    expect(ids[2]).not.toBe(ids[1]);
    expect(readFileSync(p.project.path('.ralph/logs/ralph.log'), 'utf8')).toContain('exit reason: plan_complete');
    expect(containersOf(pid)).toBe('');
  }, 180_000);

  it('ends what the agent left running before the next call, and passes it only its own credentials, in no argv or container config', async () => {
    const probe = '.ralph/fake-state';
    // A daemon in a session of its own (the image has node, not setsid): the call's process group does not hold it.
    const loop = `i=0; while :; do i=$((i+1)); echo $i > ${probe}/alive; sleep 0.1; done`;
    const daemon = `node -e 'require("child_process").spawn("sh", ["-c", process.argv[1]], { detached: true, stdio: "ignore" }).unref()' '${loop}'`;
    const p = dockerProject(
      {
        calls: [
          {
            steps: [
              { tool: 'Bash', input: { command: daemon }, exec: true },
              // The call ends once the daemon has written its counter (not after a fixed time: a loaded machine starts it late).
              { tool: 'Bash', input: { command: `for _ in $(seq 1 300); do [ -s ${probe}/alive ] && break; sleep 0.1; done` }, exec: true },
            ],
            writeFiles: { 'src/one.txt': 'one\n' },
            tickFixPlan: 1,
            statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
          },
          {
            steps: [
              {
                tool: 'Bash',
                input: {
                  command: `a=$(< ${probe}/alive); sleep 1; b=$(< ${probe}/alive); if [ "$a" = "$b" ]; then echo "gone $a"; else echo "running $a"; fi > ${probe}/verdict`,
                },
                exec: true,
              },
            ],
            writeFiles: { 'src/two.txt': 'two\n' },
            tickFixPlan: 'all',
            statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
          },
        ],
      },
      '- [ ] one\n- [ ] two\n',
      {
        ANTHROPIC_API_KEY: 'sk-ant-docker-allowlist',
        ...DOCKER_SECRETS,
        SANDBOX_ENV: 'FAKE_CLAUDE_LOG_ENV',
        FAKE_CLAUDE_LOG_ENV: Object.keys(DOCKER_SECRETS).join(','),
      },
    );
    let inspected = '';
    const r = await ralphAs(p, ['--sandbox', 'docker', '--max-loops', '3'], (child) => {
      void (async () => {
        await waitFor(() => p.runs().length >= 1);
        const id = docker('ps', '--filter', `name=ralph-sandbox-${child.pid}-`, '--format', '{{.ID}}').stdout.trim();
        inspected = docker('inspect', '--format', '{{json .Config.Env}} {{.HostConfig.PidsLimit}} {{.Config.User}}', id).stdout;
      })();
    });
    expect(r.code, r.stderr).toBe(0);
    // The loop-1 daemon wrote its counter until the call ended, and not after.
    expect(readFileSync(p.project.path(`${probe}/verdict`), 'utf8').trim()).toMatch(/^gone [1-9]\d*$/);
    const runs = p.runs();
    expect(runs[0]!.env.ANTHROPIC_API_KEY).toBe('set');
    for (const name of Object.keys(DOCKER_SECRETS)) expect(runs[0]!.env[name]).toBeUndefined();
    expect(inspected).toMatch(new RegExp(`\\] ${SANDBOX_PIDS_LIMIT} ${USER}:`));
    expect(inspected).not.toContain('sk-ant-docker-allowlist');
    for (const value of Object.values(DOCKER_SECRETS)) expect(inspected).not.toContain(value);
  }, 180_000);

  it('run as root: the container runs as the project owner, never root; a project owned by root is refused before any call', async () => {
    const p = dockerProject(
      { calls: [{ writeFiles: { 'src/done.txt': 'done\n' }, tickFixPlan: 'all', statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] },
      '- [ ] one\n',
    );
    // ralph itself as root; its own git in a repository USER owns.
    const asRoot = { cwd: p.project.dir, packageRoot: packageCopy!.root, env: { ...p.env, GIT_CONFIG_PARAMETERS: `'safe.directory=${p.project.dir}'` } };
    const r = await runCli('ralph', ['--sandbox', 'docker'], asRoot);
    expect(r.code, r.stderr).toBe(0);
    expect(p.runs().map((run) => run.uid)).toEqual([USER]);

    const rootOwned = dockerProject({ calls: [{ statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] }, '- [ ] one\n');
    chownSync(rootOwned.project.dir, 0, 0);
    const refused = await runCli('ralph', ['--sandbox', 'docker'], { cwd: rootOwned.project.dir, packageRoot: packageCopy!.root, env: rootOwned.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('belongs to root: the sandbox never runs the agent as root');
    expect(rootOwned.runs()).toEqual([]);
  }, 180_000);

  it('exits 1 before any agent call when SANDBOX_PROVIDER=docker and the daemon is not running', async () => {
    const p = dockerProject({}, '- [ ] one\n', { SANDBOX_PROVIDER: 'docker', DOCKER_HOST: `unix://${join(tmpdir(), `no-dockerd-${process.pid}.sock`)}` });
    const r = await ralphAs(p, ['--max-loops', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Docker daemon is not reachable');
    expect(r.stderr).toContain('Refusing to run the agent on the host');
    // Not in the (absent) container, and not on the host where the fake is on PATH either.
    expect(p.runs()).toEqual([]);
    expect(p.fake.runs()).toEqual([]);
  }, 60_000);

  it('exits 1 with the command to build it when the image is missing', async () => {
    const p = dockerProject({}, '- [ ] one\n', { SANDBOX_DOCKER_IMAGE: 'ralph-sandbox:latest' });
    if (docker('image', 'inspect', 'ralph-sandbox:latest').code === 0)
      throw new Error('this machine has a ralph-sandbox:latest image; the test needs it absent');
    const r = await ralphAs(p, ['--sandbox', 'docker']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Sandbox image 'ralph-sandbox:latest' not found");
    expect(r.stderr).toContain('hint: run ralph --sandbox-build');
    expect(p.fake.runs()).toEqual([]);
    expect(existsSync(p.project.path('.ralph/.docker_sandbox_state'))).toBe(false);
  }, 60_000);
});
