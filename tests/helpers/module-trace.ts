// Which modules a child process resolves: tests/fixtures/module-trace/register.mjs, loaded with
// `node --import`, appends each resolved URL to the file RALPH_MODULE_TRACE names. Give `env` to
// the process under test, then read `modules()`.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './run-cli.js';

// As a file URL: NODE_OPTIONS splits on blanks, and a checkout's path may hold one (%20 here).
const REGISTER = pathToFileURL(join(REPO_ROOT, 'tests', 'fixtures', 'module-trace', 'register.mjs')).href;

export interface ModuleTrace {
  env: NodeJS.ProcessEnv;
  /** Every URL resolved so far, in order. */
  modules(): string[];
  cleanup(): void;
}

export function startModuleTrace(): ModuleTrace {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-trace-'));
  const file = join(dir, 'modules.txt');
  writeFileSync(file, '');
  return {
    env: { NODE_OPTIONS: `--import=${REGISTER}`, RALPH_MODULE_TRACE: file },
    modules: () => readFileSync(file, 'utf8').split('\n').filter(Boolean),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
