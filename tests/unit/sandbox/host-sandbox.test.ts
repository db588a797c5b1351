// Without a sandbox the agent and the gate's commands never run as root either: ralph run as
// root runs them as the project's owner through setpriv, with a private home; a root-owned
// project is refused before anything runs, unless ALLOW_ROOT_AGENT. What needs root itself (the
// switch of a real process, the refusal of a real run) is tests/system/root-agent.test.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RalphError } from '../../../lib/errors.js';
import { chooseHostAgentUser } from '../../../lib/sandbox/agent-user.js';
import { createHostSandbox, wrapAsUser } from '../../../lib/sandbox/host-sandbox.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const ROOT = { uid: 0, gid: 0 };

describe('chooseHostAgentUser', () => {
  it('runs the agent as ralph, or as the owner when ralph is root; a root-owned project only with ALLOW_ROOT_AGENT', () => {
    expect(chooseHostAgentUser({ uid: 1000, gid: 1000 }, ROOT, '/p', false)).toEqual({ uid: 1000, gid: 1000, switchTo: false });
    expect(chooseHostAgentUser(ROOT, { uid: 1001, gid: 1002 }, '/p', false)).toEqual({ uid: 1001, gid: 1002, switchTo: true });
    // The opt-in never keeps root when the project has an owner to switch to.
    expect(chooseHostAgentUser(ROOT, { uid: 1001, gid: 1002 }, '/p', true)).toEqual({ uid: 1001, gid: 1002, switchTo: true });
    expect(chooseHostAgentUser(ROOT, ROOT, '/p', true)).toEqual({ uid: 0, gid: 0, switchTo: false });
  });

  it('refuses a root-owned project, naming every way out', () => {
    let caught: unknown;
    try {
      chooseHostAgentUser(ROOT, ROOT, '/srv/app', false);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RalphError);
    const error = caught as RalphError;
    expect(error.code).toBe('agent_as_root');
    expect(error.message).toBe('ralph runs as root and the project /srv/app belongs to root: ralph never runs the agent as root');
    const text = (error.details ?? []).join('\n');
    expect(text).toContain('run ralph as an ordinary user');
    expect(text).toContain('chown -R <user>: /srv/app');
    expect(text).toContain('--allow-root-agent (ALLOW_ROOT_AGENT=true in .ralphrc)');
  });
});

describe('createHostSandbox', () => {
  it('as root on a root-owned project: start() refuses, so no call is ever made', async () => {
    const project = mkdtempSync(join(tmpdir(), 'ralph-host-'));
    dirs.push(project);
    const logger = createMemoryLogger();
    const sandbox = createHostSandbox({ projectDir: project, homeDir: '/root', env: {}, logger, allowRootAgent: false, ids: { ralph: ROOT, owner: ROOT } });
    await expect(sandbox.start()).rejects.toThrow('ralph never runs the agent as root');
  });

  it('with ALLOW_ROOT_AGENT runs the invocation as it is, and says in the verbose log that the agent runs as root', async () => {
    const project = mkdtempSync(join(tmpdir(), 'ralph-host-'));
    dirs.push(project);
    const logger = createMemoryLogger();
    const sandbox = createHostSandbox({ projectDir: project, homeDir: '/root', env: {}, logger, allowRootAgent: true, ids: { ralph: ROOT, owner: ROOT } });
    await sandbox.start();
    const wrapped = sandbox.wrap({ cmd: '/usr/bin/claude', args: ['-p'], stdin: 'hi', env: { A: '1' } }, { PATH: '/usr/bin' });
    expect(wrapped).toEqual({ cmd: '/usr/bin/claude', args: ['-p'], stdin: 'hi', env: { PATH: '/usr/bin', A: '1' } });
    expect(logger.messages('DEBUG')).toEqual(['The agent runs as root (ALLOW_ROOT_AGENT): it can change anything on this machine']);
    await sandbox.stop();
  });
});

describe('wrapAsUser', () => {
  it('runs the command through setpriv as the user, with no capability, no groups, no new privileges, and a private home', () => {
    const wrapped = wrapAsUser(
      { cmd: 'npm', args: ['test'], stdin: '', env: { CI: 'true' } },
      { PATH: '/usr/bin', HOME: '/root', XDG_CONFIG_HOME: '/root/.config', CLAUDE_CONFIG_DIR: '/root/.claude' },
      { user: { uid: 1001, gid: 1002, switchTo: true }, setpriv: '/usr/bin/setpriv', home: '/tmp/ralph-sandbox-1-x/home' },
    );
    expect(wrapped.cmd).toBe('/usr/bin/setpriv');
    expect(wrapped.args).toEqual([
      '--reuid=1001',
      '--regid=1002',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
      'npm',
      'test',
    ]);
    expect(wrapped.env).toEqual({
      PATH: '/usr/bin',
      HOME: '/tmp/ralph-sandbox-1-x/home',
      CLAUDE_CONFIG_DIR: '/tmp/ralph-sandbox-1-x/home/.claude',
      CI: 'true',
    });
  });
});
