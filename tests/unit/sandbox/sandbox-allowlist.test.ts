// The sandbox's allow-lists and what runs after a call, without a sandbox: whom the agent runs
// as, the variables it gets (setuid files cleared: strip-setuid.test.ts), and agent CLIs inside
// the project never run on the host (their --version and --help asked inside the sandbox, or not at all).

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../../lib/agents/claude-code.js';
import { cliHasFlag } from '../../../lib/agents/cli-flags.js';
import { findAgentCommand } from '../../../lib/loop/startup.js';
import { findTrustedExecutable } from '../../../lib/platform/find-executable.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { agentProbeRunner } from '../../../lib/sandbox/agent-probe-runner.js';
import { chooseAgentUser } from '../../../lib/sandbox/agent-user.js';
import { describeSandboxEnv, filterSandboxEnv, sandboxEnvPatterns } from '../../../lib/sandbox/sandbox-env.js';
import { RalphError } from '../../../lib/errors.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function dir(prefix = 'ralph-allowlist-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** An executable script at `path` that leaves `marker` behind when it runs. */
function plantedCli(path: string, marker: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho ran > '${marker}'\necho "9.9.9 (Claude Code)"\n`, { mode: 0o755 });
}

describe('the sandbox environment allow-list', () => {
  const hostEnv = {
    PATH: '/usr/bin',
    LANG: 'C.UTF-8',
    LC_CTYPE: 'C',
    TERM: 'xterm-256color',
    HTTPS_PROXY: 'http://proxy:3128',
    ANTHROPIC_API_KEY: 'sk-ant',
    CLAUDE_CODE_OAUTH_TOKEN: 'oat',
    OPENAI_API_KEY: 'sk-openai',
    GEMINI_API_KEY: 'gem',
    GH_TOKEN: 'ghp',
    GITHUB_TOKEN: 'ghs',
    AWS_SECRET_ACCESS_KEY: 'aws',
    AWS_SESSION_TOKEN: 'awst',
    NPM_TOKEN: 'npm',
    DB_PASSWORD: 'pw',
    SSH_AUTH_SOCK: '/run/a.sock',
  };

  it("passes the base list and the running agent's credentials, nothing else", () => {
    const kept = filterSandboxEnv(hostEnv, sandboxEnvPatterns(claudeAdapter.sandboxEnv));
    expect(Object.keys(kept).sort()).toEqual(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'HTTPS_PROXY', 'LANG', 'LC_CTYPE', 'PATH', 'TERM']);
  });

  it('says what passes and what is withheld, for --doctor', () => {
    const { passed, withheld } = describeSandboxEnv(hostEnv, sandboxEnvPatterns(claudeAdapter.sandboxEnv, ['DB_PASSWORD']));
    expect(passed).toContain('DB_PASSWORD');
    expect(withheld).toEqual([
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'GEMINI_API_KEY',
      'GH_TOKEN',
      'GITHUB_TOKEN',
      'NPM_TOKEN',
      'OPENAI_API_KEY',
      'SSH_AUTH_SOCK',
    ]);
  });
});

describe('chooseAgentUser', () => {
  it('never root: ralph as a user runs it as that user; ralph as root as the project owner; a root-owned project is refused', () => {
    expect(chooseAgentUser({ uid: 1000, gid: 1000 }, { uid: 0, gid: 0 }, '/p')).toEqual({ uid: 1000, gid: 1000, switchTo: false });
    expect(chooseAgentUser({ uid: 0, gid: 0 }, { uid: 1001, gid: 1002 }, '/p')).toEqual({ uid: 1001, gid: 1002, switchTo: true });
    expect(() => chooseAgentUser({ uid: 0, gid: 0 }, { uid: 0, gid: 0 }, '/p')).toThrow(RalphError);
    expect(() => chooseAgentUser({ uid: 0, gid: 0 }, { uid: 0, gid: 0 }, '/p')).toThrow(
      'ralph runs as root and the project /p belongs to root: the sandbox never runs the agent as root',
    );
  });
});

describe('agent CLIs inside the project', () => {
  it('findTrustedExecutable skips PATH entries inside the project and relative ones', () => {
    const project = dir();
    const system = dir('ralph-system-');
    plantedCli(join(project, 'node_modules/.bin/tool'), join(project, 'm'));
    plantedCli(join(system, 'tool'), join(system, 'm'));
    const env = { PATH: ['node_modules/.bin', join(project, 'node_modules/.bin'), system].join(delimiter) };
    expect(findTrustedExecutable('tool', env, [project])).toBe(join(system, 'tool'));
    expect(findTrustedExecutable('tool', { PATH: join(project, 'node_modules/.bin') }, [project])).toBeUndefined();
  });

  it("under a sandbox, the project's node_modules/.bin/claude is never run on the host to ask its --version", async () => {
    const project = dir();
    const marker = join(project, 'ran-on-host');
    plantedCli(join(project, 'node_modules/.bin/claude'), marker);
    const env = { PATH: dir('ralph-empty-path-') };
    const runner = agentProbeRunner({ runner: nodeProcessRunner, projectDir: project, env });
    const find = findAgentCommand({
      agent: claudeAdapter,
      configured: 'claude',
      configuredFromDefault: true,
      env,
      projectDir: project,
      ralphRoot: dir(),
      processRunner: runner,
    });
    await expect(find).rejects.toThrow('Claude Code CLI not found');
    expect(existsSync(marker)).toBe(false);
  });

  it('a PATH entry inside the project (npm run puts node_modules/.bin first) is asked inside the sandbox, not on the host', async () => {
    const project = dir();
    const marker = join(project, 'ran-on-host');
    plantedCli(join(project, 'node_modules/.bin/claude'), marker);
    const env = { PATH: [join(project, 'node_modules/.bin'), dir('ralph-empty-path-')].join(delimiter) };
    const inside: string[][] = [];
    const runner = agentProbeRunner({
      runner: nodeProcessRunner,
      projectDir: project,
      env,
      runInside: async (cmd, args) => {
        inside.push([cmd, ...args]);
        return { code: 0, signal: null, timedOut: false, aborted: false, pipesHeldOpen: false, stdout: '2.1.0 (Claude Code)\n', stderr: '' };
      },
    });
    const found = await findAgentCommand({
      agent: claudeAdapter,
      configured: 'claude',
      configuredFromDefault: true,
      env,
      projectDir: project,
      ralphRoot: dir(),
      processRunner: runner,
    });
    expect(found).toEqual({ command: 'claude', version: '2.1.0' });
    expect(inside).toEqual([['claude', '--version']]);
    const help = await cliHasFlag({
      agent: 'claude',
      command: 'claude',
      version: undefined,
      flag: '--max-budget-usd',
      env,
      homeDir: dir(),
      cwd: project,
      runner,
    });
    expect(help).toBe(false);
    expect(inside.at(-1)).toEqual(['claude', '--help']);
    expect(existsSync(marker)).toBe(false);
  });
});
