// `ralph-fleet init`: checks the options and the project (a Ralph project at the top of a git
// repository), packs the running ralph into the repository, records the agent CLI's registry
// integrity, builds the workflow and writes it. An existing file is never replaced without
// --force, and then it is kept beside itself first (`ralph.yml.bak-<stamp>`), so nothing of the
// user's is lost.

import { copyFileSync, existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { RalphError } from '../errors.js';
import type { ProcessRunner } from '../platform/process.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { formatFileStamp } from '../state/timestamps.js';
import { FLEET_AGENTS, findFleetAgent } from './fleet-agents.js';
import { fetchIntegrity, packRalph } from './pack-ralph.js';
import { buildWorkflow, MAX_PARALLEL_JOBS, MAX_TIMEOUT_MINUTES, MIN_TIMEOUT_MINUTES, type FleetWorkflowOptions, type RalphPackagePin } from './workflow.js';
import { runGitCommand } from '../platform/git-operations.js';

export const DEFAULT_WORKFLOW_PATH = '.github/workflows/ralph.yml';

/** The workflow's options as the flags give them (the agent by name), and where to write it. */
export interface FleetInitOptions extends Omit<FleetWorkflowOptions, 'agent' | 'ralph' | 'agentIntegrity' | 'workflowFile'> {
  output: string;
  force: boolean;
  agent: string;
}

export interface FleetInitResult {
  path: string;
  backup?: string;
  /** The options as written into the file. */
  workflow: FleetWorkflowOptions;
}

/** What init pinned: ralph's package in the repository and the agent CLI's registry integrity. */
export interface FleetPins {
  ralph: RalphPackagePin;
  agentIntegrity: string;
}

/** The options as the workflow takes them; a RalphError naming the flag for a bad one. */
export function resolveWorkflowOptions(options: FleetInitOptions, pins: FleetPins): FleetWorkflowOptions {
  const agent = checkAgent(options.agent);
  // The label reaches YAML and a GitHub expression: plain words only.
  if (!/^[\w][\w .:/+-]{0,49}$/.test(options.label)) bad('--label: use up to 50 letters, digits, spaces and . : / + - _', 'e.g. --label ralph');
  if (!/^[\w][\w.-]{0,99}$/.test(options.runner)) bad(`--runner: '${options.runner}' is not a runner label`, 'e.g. --runner ubuntu-latest');
  const timeout = options.timeoutMinutes;
  if (!Number.isInteger(timeout) || timeout < MIN_TIMEOUT_MINUTES || timeout > MAX_TIMEOUT_MINUTES) {
    bad(
      `--timeout-minutes: ${timeout} is not a whole number from ${MIN_TIMEOUT_MINUTES} to ${MAX_TIMEOUT_MINUTES}`,
      `GitHub stops a hosted job at ${MAX_TIMEOUT_MINUTES} minutes; a longer run continues in a new job by itself`,
    );
  }
  if (!Number.isFinite(options.maxCostUsd) || options.maxCostUsd < 0)
    bad(`--max-cost: ${options.maxCostUsd} is not a dollar amount`, 'e.g. --max-cost 20 (0: no budget)');
  if (!Number.isInteger(options.maxParallel) || options.maxParallel < 1 || options.maxParallel > MAX_PARALLEL_JOBS)
    bad(`--max-parallel: ${options.maxParallel} is not a whole number from 1 to ${MAX_PARALLEL_JOBS}`, 'e.g. --max-parallel 3');
  if (options.schedule !== undefined && !/^(\S+\s+){4}\S+$/.test(options.schedule.trim())) {
    bad(`--schedule: '${options.schedule}' is not a cron line of five fields`, "e.g. --schedule '0 */6 * * *'");
  }
  return {
    label: options.label,
    agent,
    runner: options.runner,
    timeoutMinutes: timeout,
    maxCostUsd: options.maxCostUsd,
    schedule: options.schedule?.trim().replace(/\s+/g, ' '),
    maxParallel: options.maxParallel,
    sandbox: options.sandbox,
    ralph: pins.ralph,
    agentIntegrity: pins.agentIntegrity,
    allowWorkflowChanges: options.allowWorkflowChanges,
    workflowFile: basename(options.output),
  };
}

function checkAgent(name: string) {
  const agent = findFleetAgent(name);
  if (!agent) throw bad(`--agent: unknown agent '${name}'`, `use one of: ${FLEET_AGENTS.map((a) => a.name).join(', ')}`);
  return agent;
}

const NOT_YET_PINNED: FleetPins = { ralph: { version: '', path: '', sha256: '' }, agentIntegrity: '' };

export interface FleetInitContext {
  projectDir: string;
  /** ralph's installed package, which is packed into the repository. */
  packageRoot: string;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
  now: number;
}

export async function initWorkflow(options: FleetInitOptions, ctx: FleetInitContext): Promise<FleetInitResult> {
  const { projectDir } = ctx;
  // Every check that needs no file written comes first: a refusal leaves the project as it was.
  resolveWorkflowOptions(options, NOT_YET_PINNED);
  await requireRalphRepository(projectDir, ctx.runner, ctx.env);
  const path = resolve(projectDir, options.output);
  if (existsSync(path) && !options.force) {
    throw new RalphError('workflow_exists', `${options.output} already exists; it was left as it is`, {
      hint: 'run ralph-fleet init --force to replace it (a backup is kept), or --output another file',
    });
  }
  const agentIntegrity = await fetchIntegrity(checkAgent(options.agent).npmPackage, ctx.runner, ctx.env, projectDir);
  const ralph = await packRalph({ packageRoot: ctx.packageRoot, projectDir, runner: ctx.runner, env: ctx.env });
  const workflow = resolveWorkflowOptions(options, { ralph, agentIntegrity });
  const text = buildWorkflow(workflow);
  let backup: string | undefined;
  if (existsSync(path)) {
    backup = `${path}.bak-${formatFileStamp(ctx.now)}`;
    copyFileSync(path, backup);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, text);
  return { path, backup, workflow };
}

/** A Ralph project (ralph-enable ran: .ralph/ is there) at the top of a git repository. */
async function requireRalphRepository(projectDir: string, runner: ProcessRunner, env: NodeJS.ProcessEnv): Promise<void> {
  const top = await runGitCommand(runner, ['rev-parse', '--show-toplevel'], { cwd: projectDir, env, timeoutMs: 30_000 });
  if (top.code !== 0) {
    throw new RalphError('not_a_repository', 'ralph-fleet init: this directory is not in a git repository (GitHub runs the workflows of a repository)', {
      hint: 'run git init (then push it to GitHub), or cd into your repository',
    });
  }
  if (!sameDir(top.stdout.trim(), projectDir)) {
    throw new RalphError('not_repository_top', `ralph-fleet init: run it at the top of the repository (${top.stdout.trim()}), where .github/workflows/ lives`, {
      hint: `cd ${top.stdout.trim()}`,
    });
  }
  if (!isDir(resolve(projectDir, '.ralph'))) {
    throw new RalphError(
      'not_a_project',
      'ralph-fleet init: this repository is not a Ralph project (no .ralph/ folder): the jobs would have no prompt or plan to work from',
      {
        hint: 'run ralph-enable here, commit .ralph/ and .ralphrc, then ralph-fleet init',
      },
    );
  }
}

function sameDir(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function bad(message: string, hint: string): never {
  throw new RalphError('bad_flag', message, { hint });
}
