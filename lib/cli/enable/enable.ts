// ralph-enable: the five-phase wizard that enables Ralph in an existing project,
// as the Bash tool's does. Questions go to stderr, progress to stdout; --non-interactive asks nothing.

import { CONFIG_SCHEMA } from '../../config/schema.js';
import { DEFAULT_TASK_LABEL } from '../task-import-defaults.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRalphrc } from '../../config/ralphrc.js';
import { updateRalphrcText } from '../../config/ralphrc-writer.js';
import { nodeProcessRunner } from '../../platform/process.js';
import { detectGitInfo } from '../../project/detect-git.js';
import { detectProjectContext } from '../../project/detect-project.js';
import { detectTaskSources, type TaskSourcesDetected } from '../../project/detect-task-sources.js';
import { enableProject } from '../../project/enable-project.js';
import { hasCommandOnPath } from '../../platform/find-executable.js';
import type { ProjectContext } from '../../project/project-context.js';
import { checkExistingRalph } from '../../project/ralph-state.js';
import { taskSourcesList } from '../../project/render-control-files.js';
import { writeFileAtomic } from '../../state/atomic-write.js';
import { countBeadsIssues } from '../../tasks/beads-tasks.js';
import { countGitHubIssues } from '../../tasks/github-tasks.js';
import { importTasks, type TaskSourceName } from '../../tasks/import-tasks.js';
import { countTaskLines } from '../../tasks/task-line.js';
import { parseEnableArgs, renderEnableHelp, type EnableArgs } from '../bootstrap-args.js';
import { printHelpOrVersion } from '../help-or-version.js';
import { runMain } from '../error-funnel.js';
import { RalphError } from '../../errors.js';
import { unwritableReason } from '../../state/writable-dir.js';
import { formatFileOutcomes, NEXT_STEPS, phaseTitle, WIZARD_BANNER } from './messages-enable.js';
import { createPrompter, type Prompter } from '../prompts.js';

type WizardSource = Exclude<TaskSourceName, 'none'>;

const EXIT = { success: 0, error: 1, alreadyEnabled: 2, invalidArgs: 3 } as const;

export async function main(argv: string[]): Promise<number> {
  // A usage problem is a RalphError with exit code 3 (EXIT.invalidArgs), printed by the funnel.
  const args = parseEnableArgs(argv);
  if (args === 'help' || args === 'version') return printHelpOrVersion(args, 'ralph-enable', renderEnableHelp);
  const prompter = createPrompter({ input: process.stdin, output: process.stderr });
  try {
    return await runWizard(args, prompter);
  } finally {
    prompter.close();
  }
}

/** What every phase of the wizard works with. */
interface Wizard {
  readonly args: EnableArgs;
  readonly prompter: Prompter;
  readonly say: (text: string) => void;
  readonly interactive: boolean;
  readonly projectDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly runner: typeof nodeProcessRunner;
}

/** What phase 1 found. */
interface Detected {
  readonly context: ProjectContext;
  readonly sources: TaskSourcesDetected;
  /** Overwrite an existing setup (--force, or confirmed). */
  readonly force: boolean;
}

/** What phases 2 and 3 chose. */
interface Settings {
  readonly selected: WizardSource[];
  readonly context: ProjectContext;
  readonly maxCalls: number;
  readonly label: string;
  readonly prdFile: string | undefined;
}

async function runWizard(args: EnableArgs, prompter: Prompter): Promise<number> {
  const w: Wizard = {
    args,
    prompter,
    say: (text: string) => void process.stdout.write(`${text}\n`),
    interactive: !args.nonInteractive,
    projectDir: process.cwd(),
    env: process.env,
    runner: nodeProcessRunner,
  };
  w.say(WIZARD_BANNER);
  const unwritable = unwritableReason(w.projectDir);
  if (unwritable) {
    throw new RalphError('not_writable', `Cannot write to ${w.projectDir}: ${unwritable} (nothing was written)`, {
      hint: 'run ralph-enable in a folder you can write',
      exitCode: EXIT.error,
    });
  }
  const detected = await detectEnvironment(w);
  if (typeof detected === 'number') return detected;
  const settings = await chooseSettings(w, detected);
  if (typeof settings === 'number') return settings;
  const written = await generateFiles(w, detected, settings);
  if (written !== undefined) return written;
  return verifyFiles(w);
}

/** Phase 1: an existing setup, the project, its git and its task sources. A number: the exit code. */
async function detectEnvironment(w: Wizard): Promise<Detected | number> {
  const { say, projectDir, env, runner } = w;
  say(phaseTitle(1, 'Environment Detection'));
  let force = w.args.force;
  const existing = checkExistingRalph(projectDir);
  if (existing.state === 'complete' && !force) {
    say('Ralph is already enabled in this project.');
    if (!w.interactive || !(await w.prompter.confirm('Do you want to continue anyway?', false))) {
      say('Exiting. Use --force to overwrite.');
      return EXIT.alreadyEnabled;
    }
    force = true;
  } else if (existing.state === 'partial') {
    say(`Ralph is partly set up; missing: ${existing.missing.join(', ')}`);
  }
  const context = detectProjectContext(projectDir, { hasCommand: hasCommandOnPath(env) });
  const git = await detectGitInfo(projectDir, { runner, env });
  const sources = detectTaskSources(projectDir, git);
  for (const line of describeProject(context)) say(line);
  say(`Git: ${git.isRepo ? (git.remoteUrl ?? 'repository, no origin') : 'not a repository'}${git.isGitHub ? ' (GitHub)' : ''}`);
  say('Task sources:');
  await describeSources(sources, { runner, cwd: projectDir, env }, say);
  return { context, sources, force };
}

/** Phases 2 and 3: the task sources and the settings, asked (or as detected), shown, confirmed. A number: the exit code. */
async function chooseSettings(w: Wizard, detected: Detected): Promise<Settings | number> {
  const { say, args, interactive, prompter } = w;
  say(phaseTitle(2, 'Task Source Selection'));
  const selected = await chooseSources(args, detected.sources, interactive, prompter);
  say(`Task sources: ${selected.length > 0 ? selected.join(', ') : 'none (you write the tasks in fix_plan.md)'}`);

  say(phaseTitle(3, 'Configuration'));
  const found = detected.context;
  const name = interactive ? await prompter.ask('Project name', found.name) : found.name;
  // The detected test command is a guess: the gate runs it after every loop, so it is asked.
  const testCommand = interactive ? await askTestCommand(prompter, found.testCommand) : found.testCommand;
  const context: ProjectContext = { ...found, name, testCommand };
  // The same range `ralph --calls` accepts: any positive whole number.
  // The default is what an existing .ralphrc says, so accepting it changes nothing there.
  const currentCalls = readCurrentCalls(join(w.projectDir, '.ralphrc'), w.env) ?? Number(CONFIG_SCHEMA.MAX_CALLS_PER_HOUR.default);
  const maxCalls = interactive ? await prompter.askInteger('Max API calls per hour', { min: 1, defaultValue: currentCalls }) : currentCalls;
  const label =
    args.label ?? (interactive && selected.includes('github') ? await prompter.ask('GitHub label to import', DEFAULT_TASK_LABEL) : DEFAULT_TASK_LABEL);
  const prdFile = selected.includes('prd') ? await choosePrdFile(args, detected.sources, interactive, prompter) : undefined;
  say('Settings:');
  for (const line of describeProject(context)) say(`  ${line}`);
  say(`  Max calls/hour: ${maxCalls}`);
  say(`  Task sources: ${selected.length > 0 ? selected.join(', ') : 'none (you write the tasks in fix_plan.md)'}`);
  if (selected.includes('github')) say(`  GitHub label: ${label}`);
  if (prdFile) say(`  PRD file: ${prdFile}`);
  if (interactive && !(await prompter.confirm('Write the Ralph files with these settings?', true))) {
    say('Cancelled: nothing was written.');
    return EXIT.error;
  }
  return { selected, context, maxCalls, label, prdFile };
}

/** Phase 4: the tasks imported, the files written, a kept .ralphrc given the chosen values. A number: the exit code. */
async function generateFiles(w: Wizard, detected: Detected, settings: Settings): Promise<number | undefined> {
  const { say, projectDir, args } = w;
  const { selected, context, maxCalls, label } = settings;
  say(phaseTitle(4, 'File Generation'));
  const tasks = await importSelectedTasks(w, settings);
  const result = enableProject({
    projectDir,
    context,
    tasks,
    force: detected.force,
    generatedBy: 'ralph-enable',
    taskSources: taskSourcesList(detected.sources),
    githubTaskLabel: label,
    maxCallsPerHour: maxCalls,
  });
  if (result.kind !== 'enabled') {
    process.stderr.write('Error: Ralph is already enabled here\nhint: run ralph-enable --force\n');
    return EXIT.alreadyEnabled;
  }
  for (const line of formatFileOutcomes(result.files, result.backup)) say(line);
  // A .ralphrc the user already had is kept, but the values chosen here are written into it.
  const ralphrc = join(projectDir, '.ralphrc');
  if (result.files['.ralphrc'] === 'skipped') {
    const original = readFileSync(ralphrc, 'utf8');
    const chosen: Record<string, string> = { MAX_CALLS_PER_HOUR: String(maxCalls) };
    if (context.testCommand !== detected.context.testCommand) chosen.TEST_COMMAND = context.testCommand;
    if (selected.includes('github') || args.label !== undefined) chosen.GITHUB_TASK_LABEL = label;
    const updated = updateRalphrcText(original, chosen);
    if (updated !== original) writeFileAtomic(ralphrc, updated);
  }
  return undefined;
}

async function importSelectedTasks(w: Wizard, { selected, prdFile, label }: Settings): Promise<string[]> {
  const tasks: string[] = [];
  for (const source of selected) {
    const result = await importTasks({ source, projectDir: w.projectDir, prdFile, githubLabel: label, limit: w.args.limit, runner: w.runner, env: w.env });
    if (result.ok) {
      tasks.push(...result.tasks);
      w.say(`Imported ${countTaskLines(result.tasks)} task(s) from ${source}`);
      if (result.note) w.say(`Note: ${result.note}`);
    } else {
      process.stderr.write(`Warning: ${source}: ${result.message}${result.hint ? ` (${result.hint})` : ''}; no tasks imported from it\n`);
    }
  }
  return tasks;
}

/** Phase 5: every file Ralph needs is there. */
function verifyFiles({ say, projectDir }: Wizard): number {
  say(phaseTitle(5, 'Verification'));
  let ok = true;
  for (const file of ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/AGENT.md', '.ralphrc']) {
    const present = existsSync(join(projectDir, file));
    ok &&= present;
    say(present ? `  ${file} - OK` : `  ${file} - MISSING${file === '.ralphrc' ? ' (CRITICAL - required for file protection)' : ''}`);
  }
  if (!ok) return EXIT.error;
  say('\nRalph enabled successfully!');
  for (const line of NEXT_STEPS) say(line);
  return EXIT.success;
}

/** The test command, as detected or corrected: Enter keeps it, `-` means none. */
async function askTestCommand(prompter: Prompter, detected: string): Promise<string> {
  const answer = (await prompter.ask('Test command the verification gate runs after each loop (- for none)', detected)).trim();
  return answer === '-' ? '' : answer;
}

function readCurrentCalls(path: string, env: NodeJS.ProcessEnv): number | undefined {
  if (!existsSync(path)) return undefined;
  const value = parseRalphrc(readFileSync(path, 'utf8'), { env })
    .entries.filter((entry) => entry.key === 'MAX_CALLS_PER_HOUR')
    .pop()?.value;
  return value !== undefined && /^[1-9]\d*$/.test(value) ? Number(value) : undefined;
}

/** What detection found, one fact a line (what AGENT.md, PROMPT.md and .ralphrc will say). */
function describeProject(context: ProjectContext): string[] {
  const none = '(none detected)';
  return [
    `Project: ${context.name}`,
    `Type: ${context.type}${context.framework ? ` (${context.framework})` : ''}`,
    `Package manager: ${context.packageManager ?? none}`,
    `Build command: ${context.buildCommand || none}`,
    `Test command: ${context.testCommand || `${none}: no verification gate`}`,
    `Run command: ${context.runCommand || none}`,
  ];
}

async function describeSources(
  sources: TaskSourcesDetected,
  cli: { runner: typeof nodeProcessRunner; cwd: string; env: NodeJS.ProcessEnv },
  say: (text: string) => void,
): Promise<void> {
  if (sources.beads) {
    const count = await countBeadsIssues(cli);
    say(`  beads: ${count === undefined ? 'found .beads/ (bd not usable)' : `${count} open issue(s)`}`);
  }
  if (sources.github) {
    const count = await countGitHubIssues(cli);
    say(`  GitHub: ${count === undefined ? 'repository found (gh not installed or not logged in)' : `${count} open issue(s)`}`);
  }
  if (sources.prdFiles.length > 0) say(`  PRD files: ${sources.prdFiles.join(', ')}`);
  if (!sources.beads && !sources.github && sources.prdFiles.length === 0) say('  No task sources detected');
}

async function chooseSources(args: EnableArgs, sources: TaskSourcesDetected, interactive: boolean, prompter: Prompter): Promise<WizardSource[]> {
  if (args.from) return [args.from];
  if (args.skipTasks) return [];
  const detected: WizardSource[] = [...(sources.beads ? ['beads' as const] : []), ...(sources.github ? ['github' as const] : [])];
  if (!interactive) return detected;
  return prompter.selectMany<WizardSource>('Where should tasks come from? (none selected = start with an empty plan and write the tasks yourself)', [
    { label: `beads${sources.beads ? '' : ' (no .beads/ found)'}`, value: 'beads', checked: sources.beads },
    { label: `GitHub issues${sources.github ? '' : ' (no GitHub origin)'}`, value: 'github', checked: sources.github },
    { label: `PRD document${sources.prdFiles.length > 0 ? ` (${sources.prdFiles.length} found)` : ''}`, value: 'prd', checked: false },
  ]);
}

async function choosePrdFile(args: EnableArgs, sources: TaskSourcesDetected, interactive: boolean, prompter: Prompter): Promise<string | undefined> {
  if (args.prd) return args.prd;
  if (!interactive) return sources.prdFiles[0];
  if (sources.prdFiles.length > 0) {
    return prompter.selectOne(
      'Which PRD file?',
      sources.prdFiles.map((file) => ({ label: file, value: file })),
    );
  }
  const answer = await prompter.ask('Path to the PRD file', '');
  return answer || undefined;
}

await runMain(main);
