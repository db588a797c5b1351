// The sandbox's private runtime directory: 0700, in the system temp dir (never inside the
// project, which the agent can read), holding the agent's private home and, for Docker, the
// env-file with its API key. Removed whole when the sandbox stops.

import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
  return {
    path,
    home,
    seededCredentials,
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
