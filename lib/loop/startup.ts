// Startup checks before the first loop: old flat layout, missing prompt,
// integrity of the required files, and finding an agent CLI that actually runs (the sandbox's
// own checks are in lib/sandbox/).

import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { AgentAdapter } from '../agents/agent-adapter.js';
import { compareVersions } from '../text/version.js';
import { splitCommand } from '../text/command-words.js';
import { RalphError } from '../errors.js';
import type { ProcessRunner } from '../platform/process.js';
import { findExecutable, isExecutableFile } from '../platform/find-executable.js';
import { assertControlFile, assertWritableStateFiles, readControlFile } from '../state/control-file.js';
import { requiredPaths, stateFilePaths, type RalphPaths } from '../state/paths.js';
import { notAProjectHint } from '../project/nested-project.js';

export function isLegacyFlatLayout(projectDir: string): boolean {
  if (existsSync(join(projectDir, '.ralph'))) return false;
  return ['PROMPT.md', '@fix_plan.md', '@AGENT.md'].some((name) => existsSync(join(projectDir, name)));
}

export function assertNotLegacyLayout(projectDir: string): void {
  if (!isLegacyFlatLayout(projectDir)) return;
  throw new RalphError('legacy_layout', 'This project uses the old flat structure.', {
    details: ['Ralph now keeps its files in a .ralph/ folder (PROMPT.md, fix_plan.md, AGENT.md, specs/, logs/).', 'Nothing was changed.'],
    hint: 'run ralph-migrate to move this project to the .ralph/ layout',
  });
}

export function assertPromptExists(paths: RalphPaths, promptFile: string): void {
  if (existsSync(promptFile)) return;
  if (resolve(promptFile) !== resolve(paths.ralphDir, 'PROMPT.md')) {
    // A prompt file the user named (--prompt, PROMPT_FILE): the project itself is not in question.
    throw new RalphError('prompt_missing', `Prompt file '${displayPath(paths, promptFile)}' not found!`, {
      details: ['It is the prompt file given with --prompt or PROMPT_FILE (relative to the project folder).'],
      hint: 'check the path given to --prompt (or PROMPT_FILE in .ralphrc), or leave it out to use .ralph/PROMPT.md',
    });
  }
  const partial = [paths.fixPlan, paths.agent, paths.specsDir].some((p) => existsSync(p));
  throw new RalphError('prompt_missing', `Prompt file '${displayPath(paths, promptFile)}' not found!`, {
    details: [
      partial ? 'This appears to be a Ralph project but is missing .ralph/PROMPT.md.' : 'This directory is not a Ralph project.',
      'To fix this:',
      '  1. Enable Ralph in this project:  ralph-enable (or ralph-enable-ci)',
      '  2. Create a new project:          ralph-setup my-project',
      '  3. Import requirements:           ralph-import requirements.md',
      '  4. Change to a Ralph project directory: cd path/to/project',
      '  5. Create .ralph/PROMPT.md by hand',
    ],
    hint: partial
      ? 'run ralph-enable here, or cd into a Ralph project'
      : notAProjectHint(paths.projectDir, 'run ralph-enable here, or cd into a Ralph project'),
  });
}

/**
 * The prompt must be a readable, non-empty text file, fix_plan.md and AGENT.md readable files,
 * and no state file a directory: checked at startup and before every call, so bad input is a
 * clear error before a call is counted. Returns the prompt's text.
 */
export function readPromptAndCheckFiles(paths: RalphPaths, promptFile: string): string {
  const prompt = readPrompt(paths, promptFile);
  for (const file of [paths.fixPlan, paths.agent]) assertControlFile(file, { projectDir: paths.projectDir });
  assertWritableStateFiles(stateFilePaths(paths), paths.projectDir);
  return prompt;
}

/** The prompt's text, read safely (see lib/state/control-file.ts). */
export function readPrompt(paths: RalphPaths, promptFile: string): string {
  const text = readControlFile(promptFile, { projectDir: paths.projectDir, requireContent: true });
  if (text === undefined) assertPromptExists(paths, promptFile);
  return text ?? '';
}

export function missingRequiredPaths(paths: RalphPaths): string[] {
  return requiredPaths(paths)
    .filter((p) => !existsSync(p))
    .map((p) => displayPath(paths, p));
}

/** Restores only what is missing; `--force` would replace the user's PROMPT.md, AGENT.md, .ralphrc. */
export const RESTORE_HINT = 'to restore only the missing files (yours are kept), run: ralph-enable';

export function integrityError(missing: string[], exitCode: number): RalphError {
  return new RalphError('integrity_failure', 'Ralph integrity check failed - critical files missing', {
    exitCode,
    details: ['Ralph integrity check failed. Missing files:', ...missing.map((m) => `  - ${m}`)],
    hint: RESTORE_HINT,
  });
}

export interface AgentCommandOptions {
  agent: AgentAdapter;
  configured: string;
  configuredFromDefault: boolean;
  env: NodeJS.ProcessEnv;
  projectDir: string;
  ralphRoot: string;
  processRunner: ProcessRunner;
}

export interface AgentCommand {
  /** The command string to use as the agent's command (words, not a shell line). */
  command: string;
  version?: string;
}

/**
 * The agent's command key (CLAUDE_CODE_CMD, CODEX_CMD, …) when set, then its default command on
 * PATH, then the project's or ralph's own node_modules/.bin/<default>. The chosen command must
 * answer `--version`.
 */
export async function findAgentCommand(options: AgentCommandOptions): Promise<AgentCommand> {
  const candidates: string[] = [];
  if (!options.configuredFromDefault) candidates.push(options.configured);
  else {
    candidates.push(options.configured);
    for (const root of [options.projectDir, options.ralphRoot]) {
      const local = join(root, 'node_modules', '.bin', options.agent.defaultCommand);
      if (isExecutableFile(local)) candidates.push(local);
    }
  }
  for (const candidate of candidates) {
    const words = splitCommand(candidate);
    if (words.length === 0 || !resolveExecutable(words[0]!, options.env, options.projectDir)) continue;
    const answer = await options.processRunner.run(words[0]!, [...words.slice(1), '--version'], {
      cwd: options.projectDir,
      env: options.env,
      timeoutMs: 30_000,
    });
    if (answer.spawnError || answer.code !== 0) {
      if (!options.configuredFromDefault) break;
      continue;
    }
    return { command: candidate, version: options.agent.parseVersion(answer.stdout) };
  }
  if (options.agent.name !== 'claude') throw agentMissing(options.agent, options.configured);
  throw new RalphError('agent_missing', `Claude Code CLI not found: ${options.configured}`, {
    details: [
      '╔════════════════════════════════════════════════════════════╗',
      '║  CLAUDE CODE CLI NOT FOUND                                 ║',
      '╚════════════════════════════════════════════════════════════╝',
      `The command '${options.configured}' is not installed or does not run.`,
      'Install options:',
      '  1. npm install -g @anthropic-ai/claude-code',
      '  2. In this project: npm install --save-dev @anthropic-ai/claude-code',
      '     (ralph finds node_modules/.bin/claude by itself)',
      '  3. A custom path (set in .ralphrc): CLAUDE_CODE_CMD="/path/to/claude"',
    ],
    hint: 'install Claude Code, or set CLAUDE_CODE_CMD in .ralphrc',
  });
}

function agentMissing(agent: AgentAdapter, configured: string): RalphError {
  return new RalphError('agent_missing', `${agent.label} CLI not found: ${configured}`, {
    details: [
      `The command '${configured}' is not installed or does not run.`,
      'Install options:',
      `  1. ${agent.installHint}`,
      `  2. In this project: ${agent.installHint.replace(' -g ', ' --save-dev ')}`,
      `     (ralph finds node_modules/.bin/${agent.defaultCommand} by itself)`,
      `  3. A custom path (set in .ralphrc): ${agent.commandKey}="/path/to/${agent.defaultCommand}"`,
    ],
    hint: `install it, or set ${agent.commandKey} in .ralphrc`,
  });
}

export function isVersionTooOld(version: string | undefined, minimum: string): boolean {
  return version !== undefined && compareVersions(version, minimum) < 0;
}

function resolveExecutable(word: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (word.includes('/')) {
    const abs = isAbsolute(word) ? word : resolve(cwd, word);
    return isExecutableFile(abs) ? abs : undefined;
  }
  return findExecutable(word, env);
}

function displayPath(paths: RalphPaths, p: string): string {
  return p.startsWith(paths.projectDir + '/') ? p.slice(paths.projectDir.length + 1) : p;
}
