// The sandbox's private runtime directory: 0700, in the system temp dir (never inside the
// project, which the agent can read), holding the agent's private home (with the CLI's copied
// credentials) and, for bubblewrap, its seccomp filter. Removed whole when the sandbox stops;
// those of a ralph killed with -9 are removed by the next one (removeDeadRuntimeDirs).

import { chmodSync, chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { isProcessAlive } from '../state/process-alive.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RuntimeDir {
  path: string;
  /** The agent's home inside the sandbox: empty but for the files seeded into it. */
  home: string;
  /** Whether the CLI's credentials file was copied into the home. */
  seededCredentials: boolean;
  remove(): void;
}

export interface RuntimeDirOptions {
  env: NodeJS.ProcessEnv;
  homeDir: string;
  /** The agent's user when it is not ralph's (ralph runs as root): the private home is given to it. */
  owner?: { uid: number; gid: number };
  /**
   * The home is used at its own path (no sandbox mounts it elsewhere): the directory around it
   * can be passed through (0711) by the owner, who still cannot list it.
   */
  reachable?: boolean;
}

const RUNTIME_DIR_NAME = /^ralph-sandbox-(\d+)-/;

/**
 * Removes every `ralph-sandbox-<pid>-*` directory in the temp dir (ours to own: same user) whose
 * pid no longer runs; returns what was removed, with the pid, for the caller to say so.
 */
export function removeDeadRuntimeDirs(): Array<{ path: string; pid: number }> {
  const dir = tmpdir();
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: Array<{ path: string; pid: number }> = [];
  for (const name of names) {
    const pid = Number(RUNTIME_DIR_NAME.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    const path = join(dir, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push({ path, pid });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

export function createRuntimeDir(options: RuntimeDirOptions): RuntimeDir {
  const path = mkdtempSync(join(tmpdir(), `ralph-sandbox-${process.pid}-`));
  chmodSync(path, 0o700);
  const home = join(path, 'home');
  mkdirSync(join(home, '.claude'), { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  // git needs an identity to commit; nothing else of the real home comes along.
  const gitconfig = join(options.homeDir, '.gitconfig');
  if (existsSync(gitconfig)) copyFileSync(gitconfig, join(home, '.gitconfig'));
  const credentials = join(options.env.CLAUDE_CONFIG_DIR ?? join(options.homeDir, '.claude'), '.credentials.json');
  let seededCredentials = false;
  if (existsSync(credentials)) {
    const copy = join(home, '.claude', '.credentials.json');
    copyFileSync(credentials, copy);
    chmodSync(copy, 0o600);
    seededCredentials = true;
  }
  if (options.owner) giveTree(home, options.owner);
  if (options.reachable) chmodSync(path, 0o711);
  return {
    path,
    home,
    seededCredentials,
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/** chown of a tree ralph just made (no link in it), so the agent's user owns its private home. */
function giveTree(path: string, owner: { uid: number; gid: number }): void {
  chownSync(path, owner.uid, owner.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) giveTree(child, owner);
    else if (entry.isFile()) chownSync(child, owner.uid, owner.gid);
  }
}
