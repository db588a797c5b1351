// What the sandbox tests need on the machine: bubblewrap, a Docker daemon, and an image made
// offline. Missing tools are installed (apt-get) rather than the tests skipped; .ci/run does the
// same up front. The image is `docker import` of a root filesystem built from this host's own
// files (node and its libraries, git, sleep, the fake agent), cached by content hash.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_CLAUDE_DIR } from './fake-claude.js';

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function aptInstall(...packages: string[]): void {
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

export function ensureBwrap(): void {
  if (!hasCommand('bwrap')) aptInstall('bubblewrap');
}

/** Host pids whose command line contains `text` (ourselves excluded). */
export function processesWithCmdline(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Every process's argv, joined, for a secret scan. */
export function allCommandLines(): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone meanwhile
    }
  }
  return lines;
}

export function docker(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const DOCKER_ROOT = join(tmpdir(), 'ralph-test-dockerd');

/** A Docker daemon answering `docker info`: the one running, else one started here (no systemd). */
export async function ensureDockerDaemon(): Promise<void> {
  if (!hasCommand('dockerd')) aptInstall('docker.io');
  if (docker('info').code === 0) return;
  mkdirSync(DOCKER_ROOT, { recursive: true });
  const child = spawn('dockerd', ['--data-root', join(DOCKER_ROOT, 'data')], { detached: true, stdio: 'ignore' });
  child.unref();
  // Event-free by nature: the daemon says nothing when it is ready, so `docker info` is polled.
  for (let i = 0; i < 120; i++) {
    if (docker('info').code === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('dockerd did not come up');
}

/** The files of a root filesystem: node, git, sleep, their libraries, and the fake agent. */
function rootfsFiles(): string[] {
  const binaries = ['node', 'git', 'sleep', 'sh', 'env'].map((name) => execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim());
  const files = new Set<string>();
  for (const bin of binaries) {
    files.add(bin);
    for (const line of execFileSync('ldd', [realpathSync(bin)], { encoding: 'utf8' }).split('\n')) {
      const lib = /(\/\S+) \(0x/.exec(line)?.[1];
      if (lib) files.add(lib);
    }
  }
  return [...files];
}

/**
 * A test image tagged by the hash of what goes in: node, git, the fake agent at
 * /opt/fake-claude (`claude` on PATH), its scenario and log under /workspace/.ralph/fake-state.
 */
export function ensureTestImage(): string {
  const files = rootfsFiles();
  const fakeFiles = readdirSync(FAKE_CLAUDE_DIR).map((name) => join(FAKE_CLAUDE_DIR, name));
  const hash = createHash('sha256');
  for (const file of [...files, ...fakeFiles].sort()) hash.update(`${file}:${statSync(file).size}:${statSync(file).mtimeMs}\n`);
  const tag = `ralph-sandbox-test:${hash.digest('hex').slice(0, 16)}`;
  if (docker('image', 'inspect', tag).code === 0) return tag;
  // Built with tar from the host's own files; the symlinks and dirs below make it a usable root.
  const stage = join(DOCKER_ROOT, `stage-${process.pid}`);
  execFileSync('rm', ['-rf', stage]);
  for (const dir of ['opt/fake-claude', 'usr/local/bin', 'tmp', 'workspace', 'etc']) mkdirSync(join(stage, dir), { recursive: true });
  execFileSync('cp', ['-r', ...fakeFiles, join(stage, 'opt/fake-claude')]);
  execFileSync('ln', ['-s', '/opt/fake-claude/claude', join(stage, 'usr/local/bin/claude')]);
  execFileSync('chmod', ['1777', join(stage, 'tmp')]);
  const passwd = 'root:x:0:0:root:/root:/bin/sh\n';
  execFileSync('sh', ['-c', `printf '%s' "$1" > "$2/etc/passwd"`, 'sh', passwd, stage]);
  const tarball = join(stage, 'rootfs.tar');
  // The host's files go in at their own paths, symlinks followed (-h): a library's link target is no separate entry.
  execFileSync('tar', ['-chf', tarball, '-C', '/', ...files.map((f) => f.replace(/^\//, ''))]);
  execFileSync('tar', ['-rf', tarball, '-C', stage, 'opt', 'usr/local', 'tmp', 'workspace', 'etc']);
  const r = docker(
    'import',
    '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin',
    '--change', 'ENV FAKE_CLAUDE_SCENARIO=/workspace/.ralph/fake-state/scenario.json',
    '--change', 'ENV FAKE_CLAUDE_STATE_DIR=/workspace/.ralph/fake-state',
    '--change', 'ENV FAKE_CLAUDE_LOG=/workspace/.ralph/fake-state/calls.jsonl',
    '--change', 'ENV FAKE_CLAUDE_AS_ROOT=0',
    tarball, tag,
  );
  execFileSync('rm', ['-rf', stage]);
  if (r.code !== 0) throw new Error(`docker import failed: ${r.stderr}`);
  return tag;
}
