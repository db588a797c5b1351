// The sandbox's argv, as pure functions: bwrap's mount order (the hidden home under the project,
// binds under the private /tmp) and docker's, where no secret or variable value is ever written.

import { describe, expect, it } from 'vitest';
import { readSandboxSettings } from '../../../lib/sandbox/sandbox-settings.js';
import { bwrapEnvironment, bwrapOptions, commandInside, SYSTEM_ETC, type SystemEntry } from '../../../lib/sandbox/bwrap-sandbox.js';
import { containerEnvNames, dockerExecArgs, dockerRunArgs, removeDeadContainers, SANDBOX_PIDS_LIMIT } from '../../../lib/sandbox/docker-sandbox.js';

const system: SystemEntry[] = [
  { path: '/usr', kind: 'dir' },
  { path: '/bin', kind: 'link', target: 'usr/bin' },
  { path: '/lib64', kind: 'dir' },
];
const layout = {
  projectDir: '/home/u/code/app',
  realHome: '/home/u',
  privateHome: '/tmp/ralph-sandbox-1-x/home',
  system,
  binds: ['/opt/tool'],
  network: 'bridge' as const,
};

/** The destinations bwrap's options mount something at, in order (an empty `--dir` is none). */
function destinations(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (['--ro-bind', '--ro-bind-try', '--bind', '--symlink'].includes(arg)) {
      out.push(args[i + 2]!);
      i += 2;
    } else if (['--tmpfs', '--dev', '--proc'].includes(arg)) {
      out.push(args[i + 1]!);
      i += 1;
    } else if (arg === '--dir' || arg === '--perms') {
      i += 1;
    }
  }
  return out;
}

describe('bwrapOptions', () => {
  it('is an allow-list: no `/` bind, the system folders as the host has them, /etc files by name, private /tmp and /var/tmp, the home, the binds and the project on top', () => {
    const args = bwrapOptions(layout);
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at('--ro-bind', '/', '/')).toBe(-1);
    expect(at('--ro-bind', '/usr', '/usr')).toBe(0);
    expect(at('--symlink', 'usr/bin', '/bin')).toBeGreaterThan(0);
    expect(at('--ro-bind', '/lib64', '/lib64')).toBeGreaterThan(0);
    expect(at('--ro-bind-try', '/etc/passwd', '/etc/passwd')).toBeGreaterThan(0);
    expect(at('--tmpfs', '/tmp')).toBeGreaterThan(0);
    expect(at('--tmpfs', '/var/tmp')).toBeGreaterThan(0);
    expect(at('--bind', layout.privateHome, '/home/u')).toBeGreaterThan(at('--tmpfs', '/tmp'));
    expect(at('--ro-bind', '/opt/tool', '/opt/tool')).toBeGreaterThan(at('--bind', layout.privateHome, '/home/u'));
    expect(at('--bind', layout.projectDir, layout.projectDir)).toBeGreaterThan(at('--ro-bind', '/opt/tool', '/opt/tool'));
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session']));
    expect(args).not.toContain('--unshare-net');
    expect(bwrapOptions({ ...layout, network: 'none' })).toContain('--unshare-net');
  });

  it('mounts nothing of the host outside the allow-list: no /etc as a whole, no /run, /var, /root, /home or socket folder', () => {
    const mounted = destinations(bwrapOptions(layout));
    const allowed = ['/usr', '/bin', '/lib64', ...SYSTEM_ETC, '/dev', '/proc', '/tmp', '/var/tmp', '/home/u', '/opt/tool', layout.projectDir];
    expect(mounted.filter((path) => !allowed.includes(path))).toEqual([]);
    for (const secret of ['/etc/shadow', '/etc/gshadow', '/etc/sudoers', '/etc/ssh', '/etc/docker', '/etc']) expect(mounted).not.toContain(secret);
  });

  it('makes the folders leading to each mount with --dir, 0755 (bwrap would make them 0700, closed to the agent run as another user), never inside a read-only mount', () => {
    const args = bwrapOptions({ ...layout, binds: ['/usr/local/tool', '/opt/a/b'] });
    const dirs = args.flatMap((arg, i) => (arg === '--dir' ? [args[i + 1]] : []));
    expect(dirs).toEqual(['/etc', '/var', '/home', '/opt', '/opt/a', '/home/u/code']);
    expect(args.join(' ')).not.toContain('--perms');
    // As root the temp folders are opened to the agent's user.
    expect(bwrapOptions({ ...layout, asRoot: true }).join(' ')).toContain(
      '--perms 1777 --tmpfs /tmp --dir /var --perms 1777 --tmpfs /var/tmp --perms 1777 --tmpfs /dev/shm',
    );
  });

  it('mounts the guarded files read-only over the read-write project', () => {
    const ralphrc = `${layout.projectDir}/.ralphrc`;
    const args = bwrapOptions({ ...layout, readOnly: [ralphrc, `${layout.projectDir}/.git/hooks`] });
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at('--ro-bind', ralphrc, ralphrc)).toBeGreaterThan(at('--bind', layout.projectDir, layout.projectDir));
    expect(at('--ro-bind', `${layout.projectDir}/.git/hooks`, `${layout.projectDir}/.git/hooks`)).toBeGreaterThan(0);
  });

  it('as an ordinary user: a user namespace of its own with every capability dropped', () => {
    const args = bwrapOptions(layout).join(' ');
    expect(args).toContain('--unshare-user');
    expect(args).toContain('--cap-drop ALL');
  });

  it('as root: setpriv inside switches to the agent user with no capability and no_new_privs; never root', () => {
    const args = bwrapOptions({ ...layout, asRoot: true });
    expect(args).not.toContain('--unshare-user');
    expect(commandInside(['claude', '-p'], { uid: 1000, gid: 1001, switchTo: true }, '/usr/bin/setpriv')).toEqual([
      '/usr/bin/setpriv',
      '--reuid=1000',
      '--regid=1001',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
      'claude',
      '-p',
    ]);
    expect(commandInside(['claude', '-p'], { uid: 1000, gid: 1000, switchTo: false }, '')).toEqual(['claude', '-p']);
  });
});

describe('bwrapEnvironment', () => {
  const hostEnv = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    TERM: 'xterm',
    ANTHROPIC_API_KEY: 'sk-ant-1',
    OPENAI_API_KEY: 'sk-openai',
    GH_TOKEN: 'ghp_1',
    GITHUB_TOKEN: 'ghs_1',
    AWS_SECRET_ACCESS_KEY: 'aws-1',
    AWS_ACCESS_KEY_ID: 'AKIA1',
    NPM_TOKEN: 'npm_1',
    DB_PASSWORD: 'hunter2',
    SSH_AUTH_SOCK: '/run/ssh.sock',
    CLAUDE_CONFIG_DIR: '/elsewhere/.claude',
    MY_TOOL_HOME: '/opt/t',
  };
  const invocation = { cmd: 'claude', args: [], stdin: '', env: { EXTRA: '1' }, passEnv: ['ANTHROPIC_API_KEY', 'CLAUDE_CONFIG_DIR'] };

  it('passes the allow-list and the running agent credentials only: no token, cloud or database secret, no other agent key', () => {
    const inner = bwrapEnvironment(hostEnv, invocation, { homeDir: '/home/u', passEnv: [] });
    expect(inner).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      ANTHROPIC_API_KEY: 'sk-ant-1',
      CLAUDE_CONFIG_DIR: '/home/u/.claude',
      EXTRA: '1',
      TMPDIR: '/tmp',
    });
  });

  it('adds what SANDBOX_ENV names', () => {
    expect(bwrapEnvironment(hostEnv, invocation, { homeDir: '/home/u', passEnv: ['MY_TOOL_*'] })).toMatchObject({ MY_TOOL_HOME: '/opt/t' });
  });
});

describe('docker argv', () => {
  it('names the adapter variables with -e NAME only: their values stay in the environment', () => {
    const args = dockerExecArgs('abc123', { cmd: 'claude', args: ['-p', '--output-format', 'json'], stdin: 'prompt', env: { SOME_SETTING: 'value-1' } });
    expect(args).toEqual(['exec', '-i', '-w', '/workspace', '-e', 'SOME_SETTING', 'abc123', 'claude', '-p', '--output-format', 'json']);
    expect(args.join(' ')).not.toContain('value-1');
  });

  it('starts one container with --init, the uid:gid, the project at /workspace, a process limit, and no env-file', () => {
    const args = dockerRunArgs({
      image: 'img:1',
      memory: '4g',
      cpus: '2',
      network: 'none',
      name: 'ralph-sandbox-7-100',
      projectDir: '/p',
      home: '/rt/home',
      uid: 1000,
      gid: 1000,
      owner: { host: 'box', pid: 7 },
    });
    expect(args.slice(0, 3)).toEqual(['run', '-d', '--init']);
    expect(args.join(' ')).toContain(
      `--name ralph-sandbox-7-100 --label ralph.sandbox.host=box --label ralph.sandbox.pid=7 --user 1000:1000 --cap-drop ALL --security-opt no-new-privileges -v /p:/workspace -w /workspace --memory 4g --cpus 2 --pids-limit ${SANDBOX_PIDS_LIMIT} --network none -v /rt/home:/ralph-home -e HOME=/ralph-home img:1 sleep infinity`,
    );
    expect(args).not.toContain('--env-file');
  });

  it("names only the allow-list and the running agent's credentials for a call, never a host path or another secret", () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C',
      ANTHROPIC_API_KEY: 'k',
      OPENAI_API_KEY: 'o',
      GH_TOKEN: 'g',
      AWS_SECRET_ACCESS_KEY: 'a',
      NPM_TOKEN: 'n',
      DB_PASSWORD: 'd',
    };
    const names = containerEnvNames(env, { cmd: 'claude', args: [], stdin: '', passEnv: ['ANTHROPIC_API_KEY'] }, []);
    expect(names.sort()).toEqual(['ANTHROPIC_API_KEY', 'LANG']);
    const gate = containerEnvNames(env, { cmd: 'npm', args: ['test'], stdin: '', env: { CI: 'true' } }, ['DB_PASSWORD']);
    expect(gate.sort()).toEqual(['CI', 'DB_PASSWORD', 'LANG']);
  });

  it('mounts the guarded files read-only at their place under /workspace', () => {
    const args = dockerRunArgs({
      image: 'i',
      memory: '1g',
      cpus: '1',
      network: 'none',
      name: 'n',
      projectDir: '/p',
      home: '/h',
      uid: 1,
      gid: 1,
      readOnly: ['/p/.ralphrc', '/p/.git/hooks'],
      owner: { host: 'h', pid: 1 },
    });
    expect(args.join(' ')).toContain('-v /p:/workspace -v /p/.ralphrc:/workspace/.ralphrc:ro -v /p/.git/hooks:/workspace/.git/hooks:ro -w /workspace');
  });

  it("mounts WORK_DIRS read-write where the project's relative paths lead from /workspace", () => {
    const args = dockerRunArgs({
      image: 'i',
      memory: '1g',
      cpus: '1',
      network: 'none',
      name: 'n',
      projectDir: '/repo/apps/web',
      home: '/h',
      uid: 1,
      gid: 1,
      workDirs: ['/repo/libs/shared'],
      owner: { host: 'h', pid: 1 },
    });
    expect(args.join(' ')).toContain('-v /repo/apps/web:/workspace -v /repo/libs/shared:/libs/shared -w /workspace');
  });
});

describe('bwrap and WORK_DIRS', () => {
  it('binds each WORK_DIRS folder read-write at its own path, after the project', () => {
    const args = bwrapOptions({ ...layout, workDirs: ['/home/u/code/libs/shared'] }).join(' ');
    const work = args.indexOf('--bind /home/u/code/libs/shared /home/u/code/libs/shared');
    expect(work).toBeGreaterThan(args.indexOf('--bind /home/u/code/app /home/u/code/app'));
    expect(args.indexOf('--bind /home/u/code/app /home/u/code/app')).toBeGreaterThan(-1);
  });
});

describe('readSandboxSettings', () => {
  const values = { provider: 'docker', image: 'ralph-sandbox:latest', memory: '4g', cpus: '2', network: 'bridge', binds: [] };
  it('accepts the Bash tool values and refuses the rest with its messages', () => {
    expect(readSandboxSettings(values)).toMatchObject({ ok: true, settings: { provider: 'docker', memory: '4g' } });
    expect(readSandboxSettings({ ...values, provider: '' })).toEqual({ ok: true, settings: { provider: 'none' } });
    expect(readSandboxSettings({ ...values, memory: '4gb' })).toMatchObject({
      ok: false,
      message: "invalid sandbox memory limit '4gb' (expected e.g. 4g, 512m)",
    });
    expect(readSandboxSettings({ ...values, cpus: '1.5' })).toMatchObject({ ok: true });
    expect(readSandboxSettings({ ...values, cpus: '-1' })).toMatchObject({ ok: false });
    expect(readSandboxSettings({ ...values, provider: 'bwrap', binds: ['relative/dir'] })).toMatchObject({
      ok: false,
      message: expect.stringContaining('must be absolute'),
    });
    expect(readSandboxSettings({ ...values, provider: 'e2b' })).toMatchObject({ ok: false, message: expect.stringContaining('E2B') });
  });
});

describe('removeDeadContainers', () => {
  const DEAD_PID = 2 ** 22 + 4321; // above pid_max's default: never a live process
  it("removes the containers of this host's dead ralphs, found by their labels; a live owner's stays", async () => {
    const calls: string[][] = [];
    const listing = [
      `c1\t${DEAD_PID}\tralph-sandbox-${DEAD_PID}-1`,
      `c2\t${process.pid}\tralph-sandbox-${process.pid}-2`,
      'c3\t1\tralph-sandbox-1-3',
      'c4\tnot-a-pid\tx',
    ].join('\n');
    const run = async (args: string[]) => {
      calls.push(args);
      return args[0] === 'ps' ? { code: 0, stdout: `${listing}\n` } : { code: 0, stdout: '' };
    };
    expect(await removeDeadContainers(run, 'box')).toEqual([`ralph-sandbox-${DEAD_PID}-1`]);
    expect(calls[0]).toEqual(['ps', '-a', '--filter', 'label=ralph.sandbox.host=box', '--format', '{{.ID}}\t{{.Label "ralph.sandbox.pid"}}\t{{.Names}}']);
    expect(calls.slice(1)).toEqual([['rm', '-f', 'c1']]);
  });
});
