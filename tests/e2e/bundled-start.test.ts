// The bin/ shims run the esbuild bundle of their entry (scripts/bundle.mjs, part of the build):
// the read-only commands load a few chunks from their own dist/bundle-<name>/ with zod inlined, instead of our
// modules and zod's ~150 files one by one (start-up budgets, docs/performance.md). Every module a
// process resolves is recorded through a `node --import` hook.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModuleTrace, type ModuleTrace } from '../helpers/module-trace.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

let trace: ModuleTrace;
let project: TmpProject | undefined;
beforeEach(() => {
  trace = startModuleTrace();
  project = tmpProject(ralphProjectTree());
});
afterEach(() => {
  project?.cleanup();
  project = undefined;
  trace.cleanup();
});

const fileModules = () => trace.modules().filter((url) => url.startsWith('file:'));

describe('the bins run the bundle', () => {
  it.each([
    ['ralph', ['--circuit-status'], 'bundle-ralph'],
    ['ralph-monitor', ['--once'], 'bundle-monitor'],
  ] as const)('%s %j loads our code from its own dist/%s/ and no module of node_modules/', async (command, args, folder) => {
    const run = await runCli(command, [...args], { cwd: project!.dir, env: trace.env });
    expect(run.code, run.stderr).toBe(0);
    const modules = fileModules();
    expect(modules.some((url) => url.includes(`/dist/${folder}/`))).toBe(true);
    expect(modules.filter((url) => url.includes('/node_modules/'))).toEqual([]);
    // Only the shim's Node-version check comes from tsc's per-file output; no chunk of another
    // command's bundle (chunks shared between bins would multiply the files each one loads).
    expect(modules.filter((url) => url.includes('/dist/') && !url.includes(`/dist/${folder}/`)).map((url) => url.replace(/.*\/dist\//, ''))).toEqual([
      'cli/require-node.js',
    ]);
  });
});
