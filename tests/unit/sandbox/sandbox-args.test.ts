// The sandbox's argv, as pure functions: bwrap's mount order (the hidden home under the project,
// binds under the private /tmp) and docker's, where no secret or variable value is ever written.

import { describe, expect, it } from 'vitest';
import { readSandboxSettings } from '../../../lib/sandbox/sandbox-settings.js';
import { bwrapOptions, socketDirectories } from '../../../lib/sandbox/bwrap-sandbox.js';
import { dockerExecArgs, dockerRunArgs, removeDeadContainers } from '../../../lib/sandbox/docker-sandbox.js';

const layout = { projectDir: '/home/u/code/app', realHome: '/home/u', privateHome: '/tmp/ralph-sandbox-1-x/home', binds: ['/opt/tool'], network: 'bridge' as const };

describe('bwrapOptions', () => {
  it('mounts / read-only, then the private /tmp and home, then the binds and the project on top', () => {
    const args = bwrapOptions(layout);
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at('--ro-bind', '/', '/')).toBe(0);
    expect(at('--tmpfs', '/tmp')).toBeGreaterThan(0);
    expect(at('--bind', layout.privateHome, '/home/u')).toBeGreaterThan(at('--tmpfs', '/tmp'));
    expect(at('--ro-bind', '/opt/tool', '/opt/tool')).toBeGreaterThan(at('--bind', layout.privateHome, '/home/u'));
    expect(at('--bind', layout.projectDir, layout.projectDir)).toBeGreaterThan(at('--ro-bind', '/opt/tool', '/opt/tool'));
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--die-with-parent', '--new-session']));
    expect(args).not.toContain('--unshare-net');
    expect(bwrapOptions({ ...layout, network: 'none' })).toContain('--unshare-net');
  });

  it('mounts the guarded files read-only over the read-write project', () => {
    const ralphrc = `${layout.projectDir}/.ralphrc`;
    const args = bwrapOptions({ ...layout, readOnly: [ralphrc, `${layout.projectDir}/.git/hooks`] });
    const at = (...seq: string[]) => args.findIndex((_, i) => seq.every((s, j) => args[i + j] === s));
    expect(at('--ro-bind', ralphrc, ralphrc)).toBeGreaterThan(at('--bind', layout.projectDir, layout.projectDir));
    expect(at('--ro-bind', `${layout.projectDir}/.git/hooks`, `${layout.projectDir}/.git/hooks`)).toBeGreaterThan(0);
  });

  it('runs in a user namespace of its own with every capability dropped', () => {
    const args = bwrapOptions(layout).join(' ');
    expect(args).toContain('--unshare-user');
    expect(args).toContain('--cap-drop ALL');
  });

  it('covers host socket directories with an empty tmpfs, never one holding the project or home', () => {
    const args = bwrapOptions({ ...layout, socketDirs: ['/run', '/srv/agent'] }).join(' ');
    expect(args).toContain('--tmpfs /run --tmpfs /srv/agent');
    const home = process.env.HOME ?? '/root';
    expect(socketDirectories({ SSH_AUTH_SOCK: '/', XDG_RUNTIME_DIR: 'relative' }, [])).not.toContain('relative');
    expect(socketDirectories({ XDG_RUNTIME_DIR: home }, [home])).not.toContain(home);
  });
});

describe('docker argv', () => {
  it('names the adapter variables with -e NAME only: their values stay in the environment', () => {
    const args = dockerExecArgs('abc123', { cmd: 'claude', args: ['-p', '--output-format', 'json'], stdin: 'prompt', env: { SOME_SETTING: 'value-1' } });
    expect(args).toEqual(['exec', '-i', '-w', '/workspace', '-e', 'SOME_SETTING', 'abc123', 'claude', '-p', '--output-format', 'json']);
    expect(args.join(' ')).not.toContain('value-1');
  });

  it('starts one container with --init, the uid:gid, the project at /workspace and the env-file', () => {
    const args = dockerRunArgs({ image: 'img:1', memory: '4g', cpus: '2', network: 'none', name: 'ralph-sandbox-7-100', projectDir: '/p', home: '/rt/home', envFile: '/rt/env', uid: 1000, gid: 1000, owner: { host: 'box', pid: 7 } });
    expect(args.slice(0, 3)).toEqual(['run', '-d', '--init']);
    expect(args.join(' ')).toContain('--name ralph-sandbox-7-100 --label ralph.sandbox.host=box --label ralph.sandbox.pid=7 --user 1000:1000 --cap-drop ALL --security-opt no-new-privileges -v /p:/workspace -w /workspace --memory 4g --cpus 2 --network none --env-file /rt/env -v /rt/home:/ralph-home -e HOME=/ralph-home img:1 sleep infinity');
  });

  it('mounts the guarded files read-only at their place under /workspace', () => {
    const args = dockerRunArgs({ image: 'i', memory: '1g', cpus: '1', network: 'none', name: 'n', projectDir: '/p', home: '/h', uid: 1, gid: 1, readOnly: ['/p/.ralphrc', '/p/.git/hooks'], owner: { host: 'h', pid: 1 } });
    expect(args.join(' ')).toContain('-v /p:/workspace -v /p/.ralphrc:/workspace/.ralphrc:ro -v /p/.git/hooks:/workspace/.git/hooks:ro -w /workspace');
  });
});

describe('readSandboxSettings', () => {
  const values = { provider: 'docker', image: 'ralph-sandbox:latest', memory: '4g', cpus: '2', network: 'bridge', binds: [] };
  it('accepts the Bash tool values and refuses the rest with its messages', () => {
    expect(readSandboxSettings(values)).toMatchObject({ ok: true, settings: { provider: 'docker', memory: '4g' } });
    expect(readSandboxSettings({ ...values, provider: '' })).toEqual({ ok: true, settings: { provider: 'none' } });
    expect(readSandboxSettings({ ...values, memory: '4gb' })).toMatchObject({ ok: false, message: "invalid sandbox memory limit '4gb' (expected e.g. 4g, 512m)" });
    expect(readSandboxSettings({ ...values, cpus: '1.5' })).toMatchObject({ ok: true });
    expect(readSandboxSettings({ ...values, cpus: '-1' })).toMatchObject({ ok: false });
    expect(readSandboxSettings({ ...values, provider: 'bwrap', binds: ['relative/dir'] })).toMatchObject({ ok: false, message: expect.stringContaining('must be absolute') });
    expect(readSandboxSettings({ ...values, provider: 'e2b' })).toMatchObject({ ok: false, message: expect.stringContaining('E2B') });
  });
});

describe('removeDeadContainers', () => {
  const DEAD_PID = 2 ** 22 + 4321; // above pid_max's default: never a live process
  it("removes the containers of this host's dead ralphs, found by their labels; a live owner's stays", async () => {
    const calls: string[][] = [];
    const listing = [`c1\t${DEAD_PID}\tralph-sandbox-${DEAD_PID}-1`, `c2\t${process.pid}\tralph-sandbox-${process.pid}-2`, 'c3\t1\tralph-sandbox-1-3', 'c4\tnot-a-pid\tx'].join('\n');
    const run = async (args: string[]) => {
      calls.push(args);
      return args[0] === 'ps' ? { code: 0, stdout: `${listing}\n` } : { code: 0, stdout: '' };
    };
    expect(await removeDeadContainers(run, 'box')).toEqual([`ralph-sandbox-${DEAD_PID}-1`]);
    expect(calls[0]).toEqual(['ps', '-a', '--filter', 'label=ralph.sandbox.host=box', '--format', '{{.ID}}\t{{.Label "ralph.sandbox.pid"}}\t{{.Names}}']);
    expect(calls.slice(1)).toEqual([['rm', '-f', 'c1']]);
  });
});
