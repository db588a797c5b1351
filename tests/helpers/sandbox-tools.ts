// What the system suite's tests need on the machine: bubblewrap, a Docker daemon, pytest, and an
// image made offline. Nothing is installed or started here: a missing tool or daemon fails the
// test with the command that provides it (.ci/run installs both and starts dockerd). The image is
// `docker import` of a root filesystem built from this host's own files (node and its libraries,
// git, sleep, the fake agent), tagged by content hash; the test that made it removes it.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { FAKE_CLAUDE_DIR, type FakeCallScript, type FakeClaude } from './fake-claude.js';
import { REPO_ROOT } from './run-cli.js';
import { GIT_TEST_ENV, type TmpProject } from './tmp-project.js';

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** Throws, naming the install command, when `name` is not on PATH. */
function requireCommand(name: string, aptPackage: string): void {
  if (!hasCommand(name)) {
    throw new Error(
      `${name} is not installed; the system suite needs it. Install it with \`apt-get install -y ${aptPackage}\` (or run .ci/run, which installs and starts everything the system suite needs).`,
    );
  }
}

/** Throws unless the tests run as root (`why` says what for). */
export function requireRoot(why: string): void {
  if (process.getuid?.() !== 0) throw new Error(`these tests must run as root: ${why}. Run \`npm run test:system\` as root (as .ci/run does).`);
}

/** Throws, naming the install command, unless Debian's Chromium is there (the web view's browser tests). */
export function requireChromium(): string {
  requireCommand('chromium', 'chromium');
  return '/usr/bin/chromium';
}

export function requireBwrap(): void {
  requireCommand('bwrap', 'bubblewrap');
}

/** Throws, naming the install command, unless `python3 -m pytest` runs (the pytest gate tests). */
export function requirePytest(): void {
  if (spawnSync('python3', ['-m', 'pytest', '--version'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('pytest is not installed; the system suite needs it. Install it with `apt-get install -y python3-pytest` (or run .ci/run).');
  }
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

export function requireDockerCli(): void {
  requireCommand('docker', 'docker.io');
}

/** A Docker daemon answering `docker info`, else an error saying how to get one (none is started here). */
export function requireDockerDaemon(): void {
  requireDockerCli();
  const info = docker('info');
  if (info.code !== 0) {
    throw new Error(
      `no Docker daemon answers \`docker info\` (${info.stderr.trim().split('\n').pop() ?? ''}); start one (\`dockerd &\` as root, or \`systemctl start docker\`), or run .ci/run, which starts and stops one.`,
    );
  }
}

/**
 * A copy of the built package (bin/, dist/, its other shipped files and the runtime node_modules) in a new
 * world-readable temp dir, for running ralph as another user: the checkout itself may sit in a
 * folder only its owner can enter (mktemp -d makes 0700 ones). Returns its root and a remover.
 */
export function readablePackageCopy(): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'ralph-package-'));
  chmodSync(root, 0o755);
  const runtime = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((path) => path && path !== REPO_ROOT.replace(/\/$/, ''));
  for (const path of [
    'bin',
    'dist',
    'package.json',
    'templates',
    '.ralph-template',
    'Dockerfile',
    'install.sh',
    ...runtime.map((dir) => relative(REPO_ROOT, dir)),
  ]) {
    cpSync(join(REPO_ROOT, path), join(root, path), { recursive: true, dereference: true });
  }
  execFileSync('chmod', ['-R', 'a+rX', root]);
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The files of a root filesystem: node, git, a shell (the fake agent's Bash tool), sleep, mkdir, their libraries. */
function rootfsFiles(): string[] {
  const binaries = ['node', 'git', 'sleep', 'sh', 'bash', 'mkdir', 'env'].map((name) =>
    execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim(),
  );
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
  const stage = mkdtempSync(join(tmpdir(), 'ralph-test-image-'));
  try {
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
      '--change',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      '--change',
      'ENV FAKE_CLAUDE_SCENARIO=/workspace/.ralph/fake-state/scenario.json',
      '--change',
      'ENV FAKE_CLAUDE_STATE_DIR=/workspace/.ralph/fake-state',
      '--change',
      'ENV FAKE_CLAUDE_LOG=/workspace/.ralph/fake-state/calls.jsonl',
      '--change',
      'ENV FAKE_CLAUDE_AS_ROOT=0',
      tarball,
      tag,
    );
    if (r.code !== 0) throw new Error(`docker import failed: ${r.stderr}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return tag;
}

/**
 * An agent call that tries to rewrite what configures the programs ralph runs (.ralphrc, a git
 * fsmonitor, a pre-commit hook) after a write where it may (src/control.txt), then finishes the
 * plan: the attack the sandboxes' read-only mounts of the guarded files must stop.
 */
export const GUARDED_FILES_ATTACK: FakeCallScript = {
  steps: [
    { tool: 'Bash', input: { command: 'mkdir -p src && echo ok > src/control.txt' }, exec: true },
    { tool: 'Bash', input: { command: 'echo CLAUDE_CODE_CMD=./evil.sh >> .ralphrc' }, exec: true },
    { tool: 'Bash', input: { command: 'git config core.fsmonitor ./evil.sh' }, exec: true },
    { tool: 'Bash', input: { command: 'echo "touch pwned" > .git/hooks/pre-commit' }, exec: true },
  ],
  writeFiles: { 'src/done.txt': 'done\n' },
  tickFixPlan: 'all',
  statusBlock: { STATUS: 'COMPLETE', EXIT_SIGNAL: true },
};

/** After GUARDED_FILES_ATTACK: each write failed in the sandbox, so nothing was changed or undone. */
export function expectGuardedFilesUntouched(project: TmpProject, agentOutput: string, ralphStderr: string): void {
  expect(readFileSync(project.path('src/control.txt'), 'utf8')).toBe('ok\n');
  expect(agentOutput).toContain('.ralphrc: Read-only file system');
  expect(agentOutput).toMatch(/could not (write|lock) config file .*\.git\/config/);
  expect(agentOutput).toContain('.git/hooks/pre-commit: Read-only file system');
  expect(readFileSync(project.path('.ralphrc'), 'utf8')).not.toContain('evil');
  expect(readFileSync(project.path('.git/config'), 'utf8')).not.toContain('fsmonitor');
  expect(existsSync(project.path('.git/hooks/pre-commit'))).toBe(false);
  // Nothing reached the files, so the guard had nothing to undo.
  expect(existsSync(project.path('.ralph/quarantine'))).toBe(false);
  expect(ralphStderr).not.toContain('which configures what ralph and the agent run');
}

/** The ordinary user a test gives its project to when it runs as root (the sandbox runs the agent as the project's owner). */
export const SANDBOX_TEST_OWNER = 1000;

function chownTreeTo(path: string, uid: number): void {
  chownSync(path, uid, uid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTreeTo(child, uid);
    else if (!entry.isSymbolicLink()) chownSync(child, uid, uid);
  }
}

/**
 * The environment of `ralph --sandbox bwrap` with the fake agent: its variables, git's test
 * identity, its state and call log inside the project (the sandbox shows the project), and its
 * own files bound in read-only.
 */
export function bwrapFakeEnv(project: TmpProject, fake: FakeClaude): Record<string, string> {
  return {
    ...fake.env,
    ...GIT_TEST_ENV,
    FAKE_CLAUDE_STATE_DIR: project.path('.ralph/fake-state'),
    FAKE_CLAUDE_LOG: project.path('.ralph/fake-state/calls.jsonl'),
    SANDBOX_BWRAP_BIND: [fake.binDir, fake.scenarioPath].join(','),
  };
}

/**
 * Makes a project ready for `ralph --sandbox bwrap` with the fake agent: the fake's variables
 * passed in (SANDBOX_ENV), and, when the test runs as root, the project given to an ordinary user
 * (the agent runs as its owner, never root), the fake's own files readable by that user, its
 * state made now so that user owns it (ralph, root, asks the fake its --version first), and
 * ralph's own git allowed in a repository another user owns. Call it once the project's files
 * are written; returns the variables to add to ralph's environment.
 */
export function prepareSandboxProject(project: TmpProject, fake: FakeClaude, stateDir = project.path('.ralph/fake-state')): Record<string, string> {
  const env: Record<string, string> = { SANDBOX_ENV: 'FAKE_CLAUDE_*' };
  if (process.getuid?.() !== 0) return env;
  for (const dir of ['call.d', 'seq.d']) mkdirSync(join(stateDir, dir), { recursive: true });
  if (!existsSync(join(stateDir, 'calls.jsonl'))) writeFileSync(join(stateDir, 'calls.jsonl'), '');
  chownTreeTo(project.dir, SANDBOX_TEST_OWNER);
  chmodSync(project.dir, 0o755);
  for (const path of [fake.root, fake.binDir]) chmodSync(path, 0o755);
  chmodSync(fake.scenarioPath, 0o644);
  return { ...env, GIT_CONFIG_PARAMETERS: `'safe.directory=${project.dir}'` };
}
