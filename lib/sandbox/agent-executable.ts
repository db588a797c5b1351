// The agent's own executable inside the bubblewrap sandbox. The sandbox hides $HOME and /tmp,
// where agent CLIs are often installed (Claude's native installer puts `claude` in
// ~/.local/bin, nvm puts node under ~/.nvm), so ralph finds the command the way the shell
// would, runs its real file, and shows the agent that file's folder and its script
// interpreter's folder read-only. Nothing else of the hidden home becomes visible.

import { openSync, readSync, closeSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { findExecutable } from '../platform/find-executable.js';

export interface AgentExecutable {
  /** What to execute inside the sandbox: the real file when it was found, else the command as given. */
  command: string;
  /** Paths to bind read-only so that it runs. */
  binds: string[];
}

export interface ResolveAgentExecutableOptions {
  env: NodeJS.ProcessEnv;
  /** Where a relative command (node_modules/.bin/claude) is resolved. */
  cwd: string;
  homeDir: string;
}

export function resolveAgentExecutable(command: string, options: ResolveAgentExecutableOptions): AgentExecutable {
  const real = findRealFile(command, options);
  if (real === undefined) return { command, binds: [] };
  const binds = [bindPathFor(real, options.homeDir)];
  const interpreter = readInterpreter(real);
  const interpreterReal = interpreter === undefined ? undefined : findRealFile(interpreter, options);
  if (interpreterReal !== undefined) binds.push(bindPathFor(interpreterReal, options.homeDir));
  return { command: real, binds: [...new Set(binds)] };
}

function findRealFile(command: string, options: ResolveAgentExecutableOptions): string | undefined {
  const path = command.includes('/') ? resolve(options.cwd, command) : findExecutable(command, options.env);
  if (path === undefined) return undefined;
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The file's folder (a Node CLI needs its package beside it), except where that folder is the
 * home itself, one of its parents, or `/`: binding it would undo the hidden home, so only the file.
 */
function bindPathFor(file: string, homeDir: string): string {
  const dir = dirname(file);
  const home = resolve(homeDir);
  const coversHome = dir === home || home.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
  return coversHome ? file : dir;
}

/** The interpreter of a `#!` script: `#!/usr/bin/env node` gives `node`, `#!/bin/sh -e` gives `/bin/sh`. */
export function readInterpreter(file: string): string | undefined {
  const head = readHead(file, 256);
  if (!head.startsWith('#!')) return undefined;
  const words = head.slice(2).split('\n')[0]!.trim().split(/\s+/).filter(Boolean);
  const [program, ...rest] = words;
  if (program === undefined || !isAbsolute(program)) return undefined;
  if (!program.endsWith('/env')) return program;
  return rest.find((word) => !word.startsWith('-') && !word.includes('='));
}

function readHead(file: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
