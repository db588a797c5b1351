// `ralph-fleet init`: checks the options, builds the workflow and writes it. An existing file is
// never replaced without --force, and then it is kept beside itself first
// (`ralph.yml.bak-<stamp>`), so nothing of the user's is lost.

import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { RalphError } from '../errors.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { formatFileStamp } from '../state/timestamps.js';
import { FLEET_AGENTS, findFleetAgent } from './fleet-agents.js';
import { buildWorkflow, MAX_TIMEOUT_MINUTES, MIN_TIMEOUT_MINUTES, type FleetWorkflowOptions } from './workflow.js';

export const DEFAULT_WORKFLOW_PATH = '.github/workflows/ralph.yml';

/** The workflow's options as the flags give them (the agent by name), and where to write it. */
export interface FleetInitOptions extends Omit<FleetWorkflowOptions, 'agent' | 'ralphPackage' | 'workflowFile'> {
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

/** The options as the workflow takes them; a RalphError naming the flag for a bad one. */
export function resolveWorkflowOptions(options: FleetInitOptions, ralphVersion: string): FleetWorkflowOptions {
  const agent = findFleetAgent(options.agent);
  if (!agent) throw bad(`--agent: unknown agent '${options.agent}'`, `use one of: ${FLEET_AGENTS.map((a) => a.name).join(', ')}`);
  // The label reaches YAML and a GitHub expression: plain words only.
  if (!/^[\w][\w .:/+-]{0,49}$/.test(options.label)) bad('--label: use up to 50 letters, digits, spaces and . : / + - _', 'e.g. --label ralph');
  if (!/^[\w][\w.-]{0,99}$/.test(options.runner)) bad(`--runner: '${options.runner}' is not a runner label`, 'e.g. --runner ubuntu-latest');
  const timeout = options.timeoutMinutes;
  if (!Number.isInteger(timeout) || timeout < MIN_TIMEOUT_MINUTES || timeout > MAX_TIMEOUT_MINUTES) {
    bad(`--timeout-minutes: ${timeout} is not a whole number from ${MIN_TIMEOUT_MINUTES} to ${MAX_TIMEOUT_MINUTES}`, 'GitHub stops a hosted job at 360 minutes; a longer run continues in a new job by itself');
  }
  if (!Number.isFinite(options.maxCostUsd) || options.maxCostUsd < 0) bad(`--max-cost: ${options.maxCostUsd} is not a dollar amount`, 'e.g. --max-cost 20 (0: no budget)');
  if (!Number.isInteger(options.maxParallel) || options.maxParallel < 1 || options.maxParallel > 256) bad(`--max-parallel: ${options.maxParallel} is not a whole number from 1 to 256`, 'e.g. --max-parallel 3');
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
    ralphPackage: `ralph-claude-code@${ralphVersion}`,
    workflowFile: basename(options.output),
  };
}

export function initWorkflow(projectDir: string, options: FleetInitOptions, ralphVersion: string, now: number): FleetInitResult {
  const workflow = resolveWorkflowOptions(options, ralphVersion);
  const text = buildWorkflow(workflow);
  const path = resolve(projectDir, options.output);
  let backup: string | undefined;
  if (existsSync(path)) {
    if (!options.force) {
      throw new RalphError('workflow_exists', `${options.output} already exists; it was left as it is`, {
        hint: 'run ralph-fleet init --force to replace it (a backup is kept), or --output another file',
      });
    }
    backup = `${path}.bak-${formatFileStamp(now)}`;
    copyFileSync(path, backup);
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, text);
  return { path, backup, workflow };
}

function bad(message: string, hint: string): never {
  throw new RalphError('bad_flag', message, { hint });
}
