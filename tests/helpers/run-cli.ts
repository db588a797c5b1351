// runCli(bin, args): spawns a real bin/* command (built dist/) and collects its output.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Called with the child as soon as it is spawned (to send signals). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
  onStdout?: (text: string) => void;
  /** Run as this user and group (the test runs as root; a sandbox test needs an ordinary user). */
  uid?: number;
  gid?: number;
  /** Run bin/<bin> from this copy of the package instead of the checkout (see readablePackageCopy). */
  packageRoot?: string;
}

export function binPath(bin: string, packageRoot = REPO_ROOT): string {
  return join(packageRoot, 'bin', bin);
}

export function runCli(bin: string, args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath(bin, options.packageRoot), ...args], {
      cwd: options.cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      options.onStdout?.(c.toString());
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    // A command may exit without reading its input (a bad flag): the write then fails with EPIPE,
    // which is the command's answer, not the test's error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
    stopWhenTheTestEnds(child);
    options.onSpawn?.(child);
  });
}

/**
 * A test that ends before its command (it timed out, or an expectation threw first) stops the
 * command with SIGTERM, as a Ctrl-C would: ralph stops its agent and exits, and nothing the test
 * started runs on after it. Outside a test (a hook), the caller waits for the command.
 */
function stopWhenTheTestEnds(child: ChildProcess): void {
  try {
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
  } catch {
    // not inside a test
  }
}
