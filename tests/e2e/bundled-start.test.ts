// The bin/ shims run the esbuild bundle of their entry (scripts/bundle.mjs, part of the build):
// the read-only commands load a few chunks from their own dist/bundle-<name>/ with zod inlined, instead of our
// modules and zod's ~150 files one by one (start-up budgets, DESIGN.md §6). Every module a
// process resolves is recorded through a `node --import` hook.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const REGISTER = join(REPO_ROOT, 'tests', 'fixtures', 'module-trace', 'register.mjs');
let traceDir: string;
let trace: string;
let project: TmpProject | undefined;
beforeEach(() => {
  traceDir = mkdtempSync(join(tmpdir(), 'ralph-trace-'));
  trace = join(traceDir, 'modules.txt');
  writeFileSync(trace, '');
  project = tmpProject(ralphProjectTree());
});
afterEach(() => {
  project?.cleanup();
  project = undefined;
  rmSync(traceDir, { recursive: true, force: true });
});

const traceEnv = (): NodeJS.ProcessEnv => ({ NODE_OPTIONS: `--import=${REGISTER}`, RALPH_MODULE_TRACE: trace });
const fileModules = () => readFileSync(trace, 'utf8').split('\n').filter((url) => url.startsWith('file:'));

describe('the bins run the bundle', () => {
  it.each([
    ['ralph', ['--circuit-status'], 'bundle-ralph'],
    ['ralph-monitor', ['--once'], 'bundle-monitor'],
  ] as const)('%s %j loads our code from its own dist/%s/ and no module of node_modules/', async (command, args, folder) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: traceEnv() });
    expect(run.code, run.stderr).toBe(0);
    const modules = fileModules();
    expect(modules.some((url) => url.includes(`/dist/${folder}/`))).toBe(true);
    expect(modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    // Only the shim's Node-version check comes from tsc's per-file output; no chunk of another
    // command's bundle (chunks shared between bins would multiply the files each one loads).
    expect(modules.filter((url) => url.includes('/dist/') && !url.includes(`/dist/${folder}/`)).map((url) => url.replace(/.*\/dist\//, ''))).toEqual(['cli/require-node.js']);
  });
});
