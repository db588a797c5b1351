// ralph-import: create a Ralph project from a requirements document or a GitHub issue
// (docs/projects.md). Claude Code does the conversion; any failure exits 1 with its message.

import { homedir } from 'node:os';
import { goneProjectStateLine } from '../../state/gone-project-state.js';
import { existsSync, rmSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { RalphError } from '../../errors.js';
import { nodeProcessRunner } from '../../platform/process.js';
import { chooseAgent } from '../../agents/choose-agent.js';
import { loadConfig } from '../../config/load-config.js';
import type { RalphConfig } from '../../config/schema.js';
import { silentLogger } from '../../platform/logger.js';
import { installStopSignal } from '../../loop/stop-signal.js';
import { hasCommandOnPath } from '../../platform/find-executable.js';
import { CONVERSION_OUTPUTS } from '../../project/convert-requirements.js';
import { checkReplacedFiles, importRequirements, type ImportRequirementsOptions } from '../../project/import-requirements.js';
import { readRequirementsDocument } from '../../project/requirements-document.js';
import { assertTemplatesInstalled } from '../../project/templates.js';
import { nestedProjectWarnings } from '../../project/nested-project.js';
import { runMain } from '../error-funnel.js';
import { formatVersionLine, wantsVersion } from '../package-info.js';
import { createImportAgent, type ImportAgent } from './import-agent.js';
import { parseImportArgs, renderImportHelp, type ImportArgs } from './import-args.js';
import { prepareGitHubImport } from './import-github.js';
import { importNextSteps } from './messages-import.js';
import { FALLBACK_IDENTITY_WARNING } from '../setup/messages-setup.js';
import { createPrompter } from '../prompts.js';
import { firstLine } from '../../text/lines.js';

export async function main(argv: string[]): Promise<number> {
  if (wantsVersion(argv)) {
    process.stdout.write(`${formatVersionLine('ralph-import')}\n`);
    return 0;
  }
  const args = parseImportArgs(argv);
  if (args.help) {
    process.stdout.write(renderImportHelp());
    return 0;
  }
  if (argv.length === 0) {
    process.stderr.write(renderImportHelp());
    throw new RalphError('usage', 'ralph-import needs a source file or a GitHub issue', {
      hint: 'run ralph-import <file.md> [project-name], or ralph-import --github-issue <N>',
    });
  }
  const say = (text: string) => void process.stdout.write(`${text}\n`);
  const warn = (text: string) => void process.stderr.write(`Warning: ${text}\n`);
  const env = process.env;
  const cwd = process.cwd();
  // The same settings as a loop started here: flags > env > .ralphrc > ~/.ralphrc > defaults.
  const flags = args.allowRootAgent ? { ALLOW_ROOT_AGENT: true } : {};
  const { config, sources } = loadConfig({ projectDir: cwd, homeDir: homedir(), env, flags });
  const adapter = chooseAgent(config);
  // A first Ctrl-C stops the agent's call (the import then fails and cleans up); a second exits at once.
  const stop = installStopSignal({ onSecond: () => agent.stopNow() });
  const agent = createImportAgent({
    adapter,
    config,
    commandFromDefault: sources[adapter.commandKey].kind === 'default',
    workDir: cwd,
    homeDir: homedir(),
    env,
    runner: nodeProcessRunner,
    logger: { ...silentLogger, info: (text) => say(`[INFO] ${text}`) },
    stop: stop.signal,
  });
  try {
    return await importWith(args, { config, cwd, env, say, warn, agent });
  } finally {
    await agent.stop();
    stop.dispose();
  }
}

interface ImportContext {
  config: RalphConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  say: (text: string) => void;
  warn: (text: string) => void;
  agent: ImportAgent;
}

async function importWith(args: ImportArgs, context: ImportContext): Promise<number> {
  const { config, cwd, env, say, warn } = context;
  const github = args.githubIssue !== undefined || args.hasFilters;
  const findAgent = context.agent.find;
  const common = {
    parentDir: cwd,
    force: args.force,
    runner: nodeProcessRunner,
    env,
    hasCommand: hasCommandOnPath(env),
    timeoutMs: config.CLAUDE_TIMEOUT_MINUTES * 60_000,
    now: () => Date.now(),
  };

  let request: ImportRequirementsOptions;
  if (github) {
    const prompter = createPrompter({ input: process.stdin, output: process.stderr });
    try {
      const plan = await prepareGitHubImport(args, { ...common, cwd, prompter, interactiveInput: process.stdin.isTTY === true, say, warn, agent: findAgent });
      if (plan.kind === 'dry-run') return 0;
      request = { ...common, agent: await findAgent(), ...plan };
    } finally {
      prompter.close();
    }
  } else {
    const source = args.positional[0];
    if (!source) throw new RalphError('usage', 'Source file is required', { hint: 'run ralph-import --help' });
    const read = readRequirementsDocument(source);
    if (!read.ok) throw new RalphError('import_source', read.message, { hint: read.hint });
    request = {
      ...common,
      agent: await findAgent(),
      projectName: args.positional[1] ?? basename(source, extname(source)),
      document: read.text,
      documentFileName: basename(source),
      sourcePath: resolve(source),
    };
  }
  request.handTo = context.agent.handTo();
  assertTemplatesInstalled();
  checkReplacedFiles(request);
  const target = resolve(request.parentDir, request.projectName);
  const createdHere = !existsSync(target);
  for (const line of nestedProjectWarnings(request.parentDir, target)) warn(line);
  say(`Creating Ralph project "${request.projectName}" and converting ${request.documentFileName} with ${request.agent.adapter.label}…`);
  const result = await importRequirements(request);
  // A project this run created and the conversion left empty is removed, so that the retry is
  // the same command, not one that needs --force (a folder that was there is left as it is).
  const discard = (): string => {
    if (!createdHere)
      return `the project is in ${result.projectDir}; fix the problem and run ralph-import --force again (it keeps a backup of what it replaces)`;
    rmSync(result.projectDir, { recursive: true, force: true });
    return `the half-made project ${result.projectDir} was removed; fix the problem and run the same ralph-import again`;
  };
  if (result.git.kind === 'committed' && result.git.usedFallbackIdentity) process.stderr.write(`${FALLBACK_IDENTITY_WARNING}\n`);
  if (result.git.kind === 'failed') warn(`${result.git.step} failed: ${result.git.message}`);
  if (result.backup) say(`[INFO] Backup of the replaced files (${result.backup.files.join(', ')}): ${result.backup.dir}`);
  if (result.goneProjectState) say(goneProjectStateLine(result.goneProjectState.to));
  if (!result.ok) throw new RalphError('import_conversion_failed', `PRD conversion failed: ${result.message}`, { hint: discard() });
  // Claude can exit 0 having written nothing (refused, confused, or run in the wrong place).
  if (result.missing.length + result.unchanged.length === CONVERSION_OUTPUTS.length) {
    throw new RalphError('import_conversion_empty', 'PRD conversion produced nothing: Claude Code wrote none of the project files', {
      details: result.summary ? [`Claude Code said: ${summaryLine(result.summary)}`] : [],
      hint: discard(),
    });
  }
  say(result.summary ? `PRD conversion completed: ${summaryLine(result.summary)}` : 'PRD conversion completed');
  // Success is said only of an import that wrote every file it is for. In a project this run
  // created, a file the conversion left unchanged still holds the template; over an existing
  // one (--force) it may hold what the conversion would write again.
  const unwritten = createdHere ? result.unchanged : [];
  for (const file of createdHere ? [] : result.unchanged) warn(`${file} was not changed by the conversion`);
  const incomplete = [
    ...result.missing.map((file) => `${file} was not created`),
    ...unwritten.map((file) => `${file} was not updated (it still holds the template)`),
  ];
  if (incomplete.length > 0) {
    throw new RalphError('import_conversion_incomplete', `PRD import incomplete: ${incomplete.join('; ')}`, {
      hint: `the project is in ${result.projectDir} with what the conversion wrote; write the rest by hand, or run ralph-import --force again (it keeps a backup of what it replaces)`,
    });
  }
  say('🎉 PRD imported successfully!');
  for (const line of importNextSteps(request.projectName)) say(line);
  say(`Project created in: ${result.projectDir}`);
  return 0;
}

/** The summary's first line, cut to what a message line holds. */
function summaryLine(text: string): string {
  const line = firstLine(text);
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

await runMain(main);
