// ralph-enable-ci: enable Ralph without prompts. Exit codes 0–5 and the
// --json shapes are a contract with pipelines: see messages-enable-ci.ts.

import { unwritableReason } from '../../state/writable-dir.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { nodeProcessRunner } from '../../platform/process.js';
import { detectGitInfo } from '../../project/detect-git.js';
import { NOT_A_GIT_REPOSITORY } from '../../project/doctor-checks.js';
import { detectProjectContext } from '../../project/detect-project.js';
import { detectTaskSources, type TaskSourcesDetected } from '../../project/detect-task-sources.js';
import { enableProject, REPORTED_FILES } from '../../project/enable-project.js';
import { hasCommandOnPath } from '../../platform/find-executable.js';
import { printJson } from '../print-json.js';
import { checkExistingRalph } from '../../project/ralph-state.js';
import { taskSourcesList } from '../../project/render-control-files.js';
import { importTasks, type TaskSourceName } from '../../tasks/import-tasks.js';
import { countTaskLines } from '../../tasks/task-line.js';
import type { TaskSourceResult } from '../../tasks/task-source-result.js';
import { parseEnableCiArgs, renderEnableCiHelp, UsageError, type EnableCiArgs } from '../bootstrap-args.js';
import { readPackageVersion } from '../package-info.js';
import { runMain } from '../error-funnel.js';
import { formatFileOutcomes } from '../enable/messages-enable.js';
import {
  ALREADY_ENABLED_JSON,
  ALREADY_ENABLED_TEXT,
  ENABLE_CI_EXIT,
  formatErrorJson,
  formatSuccessJson,
  formatVersion,
  SUCCESS_MESSAGE,
} from './messages-enable-ci.js';

class CiFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export async function main(argv: string[]): Promise<number> {
  const jsonRequested = argv.includes('--json');
  const fail = (message: string, code: number) => {
    process.stderr.write(jsonRequested ? `${formatErrorJson(message, code)}\n` : `Error: ${message}\n`);
    return code;
  };
  let args: ReturnType<typeof parseEnableCiArgs>;
  try {
    args = parseEnableCiArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return fail(`${error.message} (see ralph-enable-ci --help)`, ENABLE_CI_EXIT.invalidArgs);
    throw error;
  }
  if (args === 'help') {
    process.stdout.write(renderEnableCiHelp());
    return ENABLE_CI_EXIT.success;
  }
  if (args === 'version') {
    // As in the Bash tool, JSON only when --json came before --version.
    const versionAt = argv.indexOf('--version');
    process.stdout.write(`${formatVersion(readPackageVersion(), argv.indexOf('--json') > -1 && argv.indexOf('--json') < versionAt)}\n`);
    return ENABLE_CI_EXIT.success;
  }
  try {
    return await enableCi(args);
  } catch (error) {
    if (error instanceof CiFailure) return fail(error.message, error.exitCode);
    return fail(error instanceof Error ? error.message : String(error), ENABLE_CI_EXIT.error);
  }
}

async function enableCi(args: EnableCiArgs): Promise<number> {
  const projectDir = process.cwd();
  const env = process.env;
  const runner = nodeProcessRunner;
  const hasCommand = hasCommandOnPath(env);
  const say = (text: string) => {
    if (!args.json && !args.quiet) process.stdout.write(`${text}\n`);
  };
  // On stderr (none under --quiet); under --json only once it succeeded, so a failure's stderr
  // stays its JSON object.
  const warnings: string[] = [];
  const warn = (text: string) => {
    if (args.quiet) return;
    if (args.json) warnings.push(text);
    else process.stderr.write(`Warning: ${text}\n`);
  };
  say('Ralph Enable CI - non-interactive setup');
  // Checked first, so an enabled project exits 2 without running git, gh or bd.
  if (!args.force && checkExistingRalph(projectDir).state === 'complete') {
    if (args.json) await writeJson(ALREADY_ENABLED_JSON, args.jq);
    else (args.quiet ? process.stderr : process.stdout).write(`${ALREADY_ENABLED_TEXT}\n`);
    return ENABLE_CI_EXIT.alreadyEnabled;
  }

  // Before anything is detected, imported or written: a folder ralph cannot write is named.
  const unwritable = unwritableReason(projectDir);
  if (unwritable) throw new CiFailure(`Cannot write to ${projectDir}: ${unwritable} (nothing was written)`, ENABLE_CI_EXIT.error);
  const detected = detectProjectContext(projectDir, { hasCommand });
  const context = { ...detected, name: args.projectName ?? detected.name, type: args.projectType ?? detected.type };
  say(`Detected: ${context.name} (${context.type})`);
  say(`Package manager: ${context.packageManager ?? 'none detected'}`);
  say(`Test command: ${context.testCommand || 'none detected (no verification gate)'}`);
  const git = await detectGitInfo(projectDir, { runner, env });
  if (!git.isRepo) warn(`this folder is ${NOT_A_GIT_REPOSITORY.detail} (fix: ${NOT_A_GIT_REPOSITORY.fix})`);
  const sources = detectTaskSources(projectDir, git);

  const source = args.from ?? (args.prd ? 'prd' : autoSource(sources));
  if (!args.from) say(`Task source (auto-detected): ${source}`);
  const prdFile = args.prd ?? (source === 'prd' ? sources.prdFiles[0] : undefined);
  const imported = await importTasks({ source, projectDir, prdFile, githubLabel: args.label, limit: args.limit, runner, env });
  const tasks = tasksOrFail(imported, args.from !== undefined, (text) => {
    if (!args.json) process.stderr.write(`Warning: ${text}\n`);
  });
  say(`Imported ${countTaskLines(tasks)} task(s) from ${source}`);
  // Why no task was imported is part of the report (stdout); under --json it is a warning.
  if (imported.ok && imported.note) {
    if (args.json) warn(imported.note);
    else say(`Note: ${imported.note}`);
  }

  const result = enableProject({
    projectDir,
    context,
    tasks,
    force: args.force,
    generatedBy: 'ralph-enable-ci',
    taskSources: taskSourcesList(sources),
    githubTaskLabel: args.label,
  });
  if (result.kind === 'already-enabled') throw new CiFailure('Ralph is already enabled', ENABLE_CI_EXIT.alreadyEnabled);
  for (const line of formatFileOutcomes(result.files, result.backup)) say(line);
  for (const required of ['.ralph/PROMPT.md', '.ralph/fix_plan.md']) {
    if (!existsSync(join(projectDir, required))) throw new CiFailure(`${required} was not created`, ENABLE_CI_EXIT.error);
  }
  const filesCreated = REPORTED_FILES.filter((file) => existsSync(join(projectDir, file)));
  const tasksImported = countTaskLines(tasks);
  if (args.json) {
    for (const text of warnings) process.stderr.write(`Warning: ${text}\n`);
    const detectedCommands = { testCommand: context.testCommand, packageManager: context.packageManager };
    await writeJson(formatSuccessJson({ projectName: context.name, projectType: context.type, filesCreated, tasksImported, ...detectedCommands }), args.jq);
  } else if (!args.quiet) {
    // What this run wrote, not every file present (the JSON's files_created keeps the Bash meaning).
    const written = Object.values(result.files).filter((outcome) => outcome === 'created' || outcome === 'overwritten').length;
    process.stdout.write(`${SUCCESS_MESSAGE} for: ${context.name} (${context.type})\nFiles created: ${written}\nTasks imported: ${tasksImported}\n`);
  }
  return ENABLE_CI_EXIT.success;
}

/** The --json output exactly as pipelines expect it, or filtered through --jq. */
async function writeJson(text: string, jq: string | undefined): Promise<void> {
  if (jq === undefined) process.stdout.write(`${text}\n`);
  else await printJson(JSON.parse(text), jq, (t) => process.stdout.write(t));
}

function autoSource(sources: TaskSourcesDetected): TaskSourceName {
  if (sources.beads) return 'beads';
  if (sources.github) return 'github';
  if (sources.prdFiles.length > 0) return 'prd';
  return 'none';
}

// An explicitly requested source that cannot deliver is an error (4: file, 5: tool); an
// auto-detected one only warns, as the Bash tool imported 0 tasks silently.
function tasksOrFail(result: TaskSourceResult, explicit: boolean, warn: (text: string) => void): string[] {
  if (result.ok) return result.tasks;
  const text = result.hint ? `${result.message} (${result.hint})` : result.message;
  if (result.reason === 'file-not-found') throw new CiFailure(text, ENABLE_CI_EXIT.fileNotFound);
  if (!explicit) {
    warn(`${text}; continuing without imported tasks`);
    return [];
  }
  const dependency = result.reason === 'missing-tool' || result.reason === 'unauthenticated' || result.reason === 'not-configured';
  throw new CiFailure(text, dependency ? ENABLE_CI_EXIT.dependencyMissing : ENABLE_CI_EXIT.error);
}

await runMain(main);
