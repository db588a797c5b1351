// What the fault tests need from the machine to fake a full disk or a read-only .ralph/, provided
// rather than hoped for: a private mount namespace (root gets one with plain `unshare -m`, anyone
// else through a user namespace, `unshare -rm`), and, for root without one, an unprivileged user
// made with `useradd` so that file modes apply. When the machine truly cannot, these throw with
// the reason, so the test fails saying why instead of being skipped.

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, lchownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const IS_ROOT = process.getuid?.() === 0;
const TEST_USER = 'ralph-fault-test';

let namespace: { prefix: string[] } | { reason: string } | undefined;

/** argv that runs a command inside a private mount namespace where it may mount, or why not. */
export function probeMountNamespace(): { prefix: string[] } | { reason: string } {
  if (namespace) return namespace;
  const prefix = IS_ROOT ? ['unshare', '-m', '--'] : ['unshare', '-rm', '--'];
  const dir = mkdtempSync(join(tmpdir(), 'ralph-ns-probe-'));
  try {
    const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'sh', '-c', 'mount -t tmpfs -o size=64k tmpfs "$1"', 'sh', dir], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    namespace =
      probe.status === 0
        ? { prefix }
        : { reason: `\`${prefix.join(' ')} mount -t tmpfs\` failed: ${probe.error?.message ?? (probe.stderr.trim() || `exit ${probe.status}`)}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return namespace;
}

/** The mount namespace prefix; throws with the reason when this machine cannot make one. */
export function mountNamespacePrefix(): string[] {
  const found = probeMountNamespace();
  if ('reason' in found) throw new Error(`a private mount namespace is needed and cannot be made here: ${found.reason}`);
  return found.prefix;
}

/** uid and gid of an unprivileged user (created once with useradd); root only. */
export function unprivilegedUser(): { uid: number; gid: number } {
  if (!IS_ROOT) throw new Error('only root can add the unprivileged test user');
  const id = (flag: string) => Number(execFileSync('id', [flag, TEST_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    const made = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`cannot add the unprivileged test user: ${made.error?.message ?? made.stderr.trim()}`);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Gives a whole tree to `uid`:`gid` (symlinks themselves, not what they point at). */
export function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, uid, gid);
    else lchownSync(path, uid, gid);
  }
}
