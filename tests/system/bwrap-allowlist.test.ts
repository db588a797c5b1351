// `ralph --sandbox bwrap` run as root, against the attacks of a prompt-injected agent: the
// sandbox is an allow-list (no /etc/shadow, no other home, no socket in any host folder), the
// agent runs as the project's owner (never root) and cannot make a setuid file,
// it gets none of the user's tokens, and a claude planted in the project's node_modules/.bin is
// never run on the host. Needs root and bubblewrap.

import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCallLog, withFakeClaude, type FakeCallScript } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { bwrapFakeEnv, prepareSandboxProject, requireBwrap, requireRoot, SANDBOX_TEST_OWNER } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => {
  requireRoot('the agent must be shown not to be root, and root-only files unreachable, while ralph is root');
  requireBwrap();
}, 300_000);

/** A listening unix socket at `path`, removed after the test. */
async function listenAt(path: string): Promise<Server> {
  const server = createServer((socket) => socket.end('host socket reached\n'));
  server.on('connection', (socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  cleanups.push(
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    () => (path.startsWith('\0') ? undefined : rmSync(path, { force: true })),
  );
  return server;
}

/** Shell that prints "connected" when a unix socket at $1 accepts a connection. */
const CONNECT = `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'`;
/** The same for an abstract socket (no file: it lives in the network namespace) named $1. */
const CONNECT_ABSTRACT = `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect("\\0" + sys.argv[1]); print("connected")'`;

const SECRETS = {
  GH_TOKEN: 'ghp_sandbox_test',
  GITHUB_TOKEN: 'ghs_sandbox_test',
  AWS_SECRET_ACCESS_KEY: 'aws-sandbox-test',
  NPM_TOKEN: 'npm_sandbox_test',
  DB_PASSWORD: 'db-sandbox-test',
  OPENAI_API_KEY: 'sk-openai-sandbox-test',
};

interface AllowListRun {
  project: TmpProject;
  out: string;
  code: number | null;
  stderr: string;
  read(name: string): string;
}

/** ralph as root with --sandbox bwrap on a project owned by OWNER, the agent running `steps`. */
async function runAsRoot(call: FakeCallScript, prepare?: (project: TmpProject, env: Record<string, string>) => Record<string, string>): Promise<AllowListRun> {
  const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS="Bash"\n` }), { git: true });
  const fake = withFakeClaude({ calls: [call] });
  cleanups.push(
    () => project.cleanup(),
    () => fake.cleanup(),
  );
  const out = project.path('.ralph/probe');
  mkdirSync(out, { recursive: true });
  const env = {
    ...bwrapFakeEnv(project, fake),
    ...SECRETS,
    // The host network shared (the default), whatever the caller's environment says.
    SANDBOX_DOCKER_NETWORK: 'bridge',
  };
  const extra = prepare ? prepare(project, env) : {};
  const finalEnv = { ...env, ...extra, ...prepareSandboxProject(project, fake) };
  const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '1'], { cwd: project.dir, env: finalEnv });
  const agentStderr = () =>
    readdirSync(project.path('.ralph/logs'))
      .filter((n) => n.includes('stderr'))
      .map((n) => readFileSync(project.path(`.ralph/logs/${n}`), 'utf8'))
      .join('\n');
  const read = (name: string) =>
    existsSync(join(out, name)) ? readFileSync(join(out, name), 'utf8').trim() : `(no ${name}: ${r.stderr.slice(-1500)}\n${agentStderr().slice(-1500)})`;
  return { project, out, code: r.code, stderr: r.stderr, read };
}

const bash = (command: string) => ({ tool: 'Bash', input: { command }, exec: true }) as const;

describe('ralph --sandbox bwrap as root: an allow-list', () => {
  it('refuses a project owned by root, before any call: the agent would be root over the host files', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\nALLOWED_TOOLS="Bash"\n` }), { git: true });
    const fake = withFakeClaude({ calls: [{ steps: [bash('id -u > uid-of-agent')], statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }] });
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
    );
    const env = { ...fake.env, ...GIT_TEST_ENV, SANDBOX_BWRAP_BIND: [fake.binDir, fake.scenarioPath].join(','), SANDBOX_ENV: 'FAKE_CLAUDE_*' };
    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '1'], { cwd: project.dir, env });
    expect(existsSync(project.path('uid-of-agent')), existsSync(project.path('uid-of-agent')) ? readFileSync(project.path('uid-of-agent'), 'utf8') : '').toBe(
      false,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`ralph runs as root and the project ${project.dir} belongs to root: the sandbox never runs the agent as root`);
    expect(r.stderr).toContain('chown -R <user>:');
  }, 90_000);

  it('shows the agent no root-only file, no other home, no socket in /var/tmp or /run nor an abstract one; it is the project owner, not root', async () => {
    const socketDir = mkdtempSync(join('/var/tmp', 'ralph-socket-'));
    cleanups.push(() => rmSync(socketDir, { recursive: true, force: true }));
    const varSocket = join(socketDir, 'service.sock');
    const runSocket = `/run/ralph-allowlist-${process.pid}.sock`;
    await listenAt(varSocket);
    await listenAt(runSocket);
    const abstractName = `ralph-abstract-${process.pid}`;
    await listenAt(`\0${abstractName}`);
    const o = '.ralph/probe';
    const r = await runAsRoot({
      steps: [
        bash(`id -u > ${o}/uid; grep CapEff /proc/self/status > ${o}/caps`),
        bash(`cat /etc/shadow > ${o}/shadow 2>&1; echo "exit $?" >> ${o}/shadow`),
        bash(`ls /root /home /srv /var/lib /etc/ssh > ${o}/ls 2>&1; echo "exit $?" >> ${o}/ls`),
        bash(`${CONNECT} ${varSocket} > ${o}/var-socket 2>&1`),
        bash(`${CONNECT} ${runSocket} > ${o}/run-socket 2>&1`),
        bash(`${CONNECT_ABSTRACT} ${abstractName} > ${o}/abstract-socket 2>&1`),
        // Its own socket pairs still work (a program talking to its children).
        bash(`python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"ok"); print(b.recv(2).decode())' > ${o}/socketpair 2>&1`),
      ],
      statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
    });
    expect(r.read('uid'), r.stderr).toBe(String(SANDBOX_TEST_OWNER));
    expect(r.read('caps')).toMatch(/^CapEff:\s+0+$/);
    expect(r.read('shadow')).toMatch(/No such file or directory[\s\S]*exit 1/);
    expect(r.read('ls')).not.toMatch(/exit 0$/);
    expect(r.read('ls')).toContain("cannot access '/root'");
    expect(r.read('var-socket')).not.toContain('connected');
    expect(r.read('run-socket')).not.toContain('connected');
    expect(r.read('abstract-socket')).not.toContain('connected');
    expect(r.read('abstract-socket')).toContain('PermissionError');
    expect(r.read('socketpair')).toBe('ok');
  }, 90_000);

  it("passes none of the user's tokens, cloud keys or other agents' keys: only the allow-list and the running agent's credentials", async () => {
    // The fake logs the variables named in FAKE_CLAUDE_LOG_ENV that it got, and its key as "set".
    const r = await runAsRoot({ steps: [bash('env > .ralph/probe/env')], statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }, () => ({
      FAKE_CLAUDE_LOG_ENV: Object.keys(SECRETS).join(','),
    }));
    const calls = readCallLog(r.project.path('.ralph/fake-state/calls.jsonl')).filter((call) => call.prompt !== undefined);
    expect(calls, r.stderr).toHaveLength(1);
    expect(calls[0]!.env.ANTHROPIC_API_KEY).toBe('set');
    for (const name of Object.keys(SECRETS)) expect(calls[0]!.env[name]).toBeUndefined();
    // Nor does what the agent runs see them.
    const inside = r.read('env');
    expect(inside).toContain('PATH=');
    for (const value of Object.values(SECRETS)) expect(inside).not.toContain(value);
  }, 90_000);

  it('leaves no setuid file the agent made: the bit cannot be set inside (see bwrap-set-id.test.ts for every way)', async () => {
    const r = await runAsRoot({
      steps: [bash('cp /bin/sh ./planted; chmod 4755 ./planted 2> .ralph/probe/refused; stat -c %a ./planted > .ralph/probe/mode')],
      statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
    });
    // It was refused inside ...
    expect(r.read('refused'), r.stderr).toContain('Operation not permitted');
    expect(r.read('mode')).toBe('755');
    // ... so there is none on the host, where it would run as its owner.
    const planted = lstatSync(r.project.path('planted'));
    expect(planted.uid).toBe(SANDBOX_TEST_OWNER);
    expect(planted.mode & 0o7777).toBe(0o755);
  }, 90_000);

  it("never runs a claude planted in the project's node_modules/.bin on the host (npm run puts it first on PATH)", async () => {
    const hostOnly = mkdtempSync(join('/var/tmp', 'ralph-host-only-'));
    cleanups.push(() => rmSync(hostOnly, { recursive: true, force: true }));
    const r = await runAsRoot({ statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true } }, (project, env) => {
      const planted = project.path('node_modules/.bin/claude');
      mkdirSync(join(planted, '..'), { recursive: true });
      // Where it runs: /var/tmp is the host's on the host, an empty one in the sandbox.
      writeFileSync(
        planted,
        `#!/bin/sh\nif [ -d ${hostOnly} ]; then echo host >> ${project.path('.ralph/probe/where')}; else echo sandbox >> ${project.path('.ralph/probe/where')}; fi\necho "2.1.0 (Claude Code)"\n`,
        { mode: 0o755 },
      );
      return { PATH: [project.path('node_modules/.bin'), env.PATH].join(delimiter) };
    });
    const where = existsSync(join(r.out, 'where')) ? readFileSync(join(r.out, 'where'), 'utf8') : '';
    expect(where, r.stderr).not.toContain('host');
    // It was asked, inside the sandbox.
    expect(where).toContain('sandbox');
    expect(statSync(hostOnly).isDirectory()).toBe(true);
  }, 90_000);
});
