// `ralph --sandbox bwrap` run as root (CI, containers) holds: the agent has no capability
// (CapEff 0), cannot remount `/` read-write, cannot write outside the project, and reaches no
// host unix socket — neither one in /run nor the user's SSH agent, whose variable it does not
// get. Needs root and bubblewrap.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { prepareSandboxProject, requireBwrap } from '../helpers/sandbox-tools.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('tests/system/bwrap-as-root.test.ts must run as root (sudo npm run test:system)');
  requireBwrap();
}, 300_000);

/** A listening unix socket at `path`, removed after the test. */
async function listenAt(path: string): Promise<Server> {
  const server = createServer((socket) => socket.end('host socket reached\n'));
  server.on('connection', (socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

/** Shell that prints "connected" when a unix socket at $1 accepts a connection. */
const CONNECT = `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("connected")'`;

describe('ralph --sandbox bwrap as root', () => {
  it('leaves the agent no capability, no remount, no write outside the project, no host socket', async () => {
    const project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Bash"\n` }), { git: true });
    const outside = mkdtempSync(join(tmpdir(), 'ralph-outside-'));
    const agentDir = mkdtempSync(join('/var/tmp', 'ralph-ssh-agent-'));
    const fake = withFakeClaude();
    cleanups.push(
      () => project.cleanup(),
      () => fake.cleanup(),
      () => rmSync(outside, { recursive: true, force: true }),
      () => rmSync(agentDir, { recursive: true, force: true }),
    );
    const runSocket = `/run/ralph-test-${process.pid}.sock`;
    const sshSocket = join(agentDir, 'agent.sock');
    await listenAt(runSocket);
    await listenAt(sshSocket);
    cleanups.push(() => rmSync(runSocket, { force: true }));
    const out = project.path('.ralph/probe');
    mkdirSync(out, { recursive: true });
    fake.setScenario({
      calls: [
        {
          steps: [
            { tool: 'Bash', input: { command: `grep CapEff /proc/self/status > ${out}/caps` }, exec: true },
            { tool: 'Bash', input: { command: `mount -o remount,bind,rw / 2> ${out}/remount-err; echo $? > ${out}/remount` }, exec: true },
            { tool: 'Bash', input: { command: `echo escaped > ${outside}/escape.txt; echo $? > ${out}/escape` }, exec: true },
            { tool: 'Bash', input: { command: `${CONNECT} ${runSocket} > ${out}/run-socket 2>&1` }, exec: true },
            {
              tool: 'Bash',
              input: { command: `${CONNECT} ${sshSocket} > ${out}/ssh-socket 2>&1; echo "\${SSH_AUTH_SOCK:-unset}" > ${out}/ssh-env` },
              exec: true,
            },
          ],
          statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
        },
      ],
    });
    const env = {
      ...fake.env,
      ...GIT_TEST_ENV,
      FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
      FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
      SANDBOX_BWRAP_BIND: [fake.binDir, fake.scenarioPath, outside].join(','),
      SSH_AUTH_SOCK: sshSocket,
      ...prepareSandboxProject(project, fake),
    };
    const r = await runCli('ralph', ['--sandbox', 'bwrap', '--max-loops', '1'], { cwd: project.dir, env });
    const read = (name: string) => (existsSync(join(out, name)) ? readFileSync(join(out, name), 'utf8').trim() : `(no ${name}: ${r.stderr.slice(-2000)})`);
    expect(read('caps')).toMatch(/^CapEff:\s+0+$/);
    expect(read('remount')).not.toBe('0');
    expect(read('escape')).not.toBe('0');
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
    expect(read('run-socket')).not.toContain('connected');
    expect(read('ssh-socket')).not.toContain('connected');
    expect(read('ssh-env')).toBe('unset');
  }, 90_000);
});
