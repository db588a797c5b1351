// One run of ralph's loop against a scripted fake Claude on a small plan, for the guard matrix
// (tests/e2e/guards/honest-work.test.ts and hostile-work.test.ts): the project's files, its plan
// and .ralphrc, the calls the agent makes; back come the exit code, how many calls it took,
// status.json's exit reason and the log. `ralph --max-loops N` runs in the test's process
// (ralph-in-process.ts): the guards' decisions are the point, not the process's start.

import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ralphPaths } from '../../lib/state/paths.js';
import { withFakeClaude, type FakeCallScript } from './fake-claude.js';
import { FAST_LOOP_RC } from './loop-harness.js';
import { runRalphInProcess } from './ralph-in-process.js';
import type { CliResult } from './run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from './tmp-project.js';
import type { Cleanups } from './cleanups.js';

export interface ScriptedRunOptions {
  plan: string;
  calls: FakeCallScript[];
  /** More project files (project-relative). */
  files?: Record<string, string>;
  /** .ralphrc lines after the fast-loop ones. */
  rc?: string;
  maxLoops?: number;
  /** Where the project is in the repository (a monorepo's `apps/web`); '' by default. */
  projectIn?: string;
  /** Files of the repository outside the project (repository-relative). */
  repoFiles?: Record<string, string>;
  /** Runs after the repository's first commit, before ralph starts. */
  setup?: (repo: TmpProject, projectDir: string) => void;
}

export interface ScriptedRun {
  result: CliResult;
  calls: number;
  exitReason: unknown;
  log: string;
  repo: TmpProject;
  projectDir: string;
}

export async function runScripted(cleanups: Cleanups, options: ScriptedRunOptions): Promise<ScriptedRun> {
  const prefix = options.projectIn ? `${options.projectIn}/` : '';
  const project = ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${options.rc ?? ''}`, '.ralph/fix_plan.md': options.plan, ...options.files });
  const tree: Record<string, string> = { ...options.repoFiles };
  for (const [path, content] of Object.entries(project)) tree[prefix + path] = content;
  const repo = tmpProject(tree, { git: true });
  cleanups.push(() => repo.cleanup());
  const projectDir = repo.path(options.projectIn ?? '');
  options.setup?.(repo, projectDir);
  const fake = withFakeClaude({ calls: options.calls });
  cleanups.push(() => fake.cleanup());
  const result = await runRalphInProcess(projectDir, ['--max-loops', String(options.maxLoops ?? 12)], fake.env);
  const logFile = ralphPaths(projectDir).ralphLog;
  expect(existsSync(logFile), `ralph wrote no log (exit ${result.code}):\n${result.stderr}`).toBe(true);
  const status = JSON.parse(readFileSync(`${projectDir}/.ralph/status.json`, 'utf8')) as Record<string, unknown>;
  return { result, calls: fake.runs().length, exitReason: status.exit_reason, log: readFileSync(logFile, 'utf8'), repo, projectDir };
}

/** What a failed expectation shows: the end of stderr. */
export function tail(ran: ScriptedRun): string {
  return `exit ${ran.result.code}, ${ran.calls} calls, ${String(ran.exitReason)}:\n${ran.result.stderr.slice(-2500)}`;
}

/** The run ended as done: exit 0 with a completion reason. */
export function expectDone(ran: ScriptedRun, calls?: number): void {
  expect(ran.result.code, tail(ran)).toBe(0);
  expect(['plan_complete', 'project_complete', 'completion_signals'], tail(ran)).toContain(ran.exitReason);
  if (calls !== undefined) expect(ran.calls, tail(ran)).toBe(calls);
}

/** The run was halted by a guard (exit 2), never ended as done. */
export function expectHalted(ran: ScriptedRun, reasons: string[]): void {
  expect(ran.result.code, tail(ran)).toBe(2);
  expect(reasons, tail(ran)).toContain(ran.exitReason);
}
