// Which command runs the project's tests: TEST_COMMAND from the configuration, else one detected
// from the project's manifests (package.json scripts.test, pytest configuration, Cargo.toml,
// go.mod). Never a command read from .ralph/AGENT.md: the agent edits that file, and an agent
// limited to ALLOWED_TOOLS="Read" must not get a shell command run by rewriting it. AGENT.md's
// test command is only compared with the gate's (agentMdTestCommandWarning). Placeholders that
// ralph-enable writes when it found no command (`echo 'No test command configured'`,
// `{{TEST_COMMAND}}`) are not test commands.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readTextIfPresent } from '../platform/read-text.js';

export type TestCommandSource = 'config' | 'detected';

export interface ResolvedTestCommand {
  command: string;
  source: TestCommandSource;
  /** Where it came from, for the log: `.ralphrc`, `package.json scripts.test`, … */
  detail: string;
}

export interface ResolveTestCommandOptions {
  projectDir: string;
  /** TEST_COMMAND as configured ('' when unset). */
  configured: string;
  /** Where the configured value came from, for the log (default `.ralphrc`). */
  configuredFrom?: string;
}

export function resolveTestCommand(options: ResolveTestCommandOptions): ResolvedTestCommand | null {
  const configured = options.configured.trim();
  if (configured !== '' && !isPlaceholderCommand(configured)) {
    return { command: configured, source: 'config', detail: options.configuredFrom ?? '.ralphrc' };
  }
  return detectTestCommand(options.projectDir);
}

const MAX_QUOTED_COMMAND = 200;

/**
 * The warning when AGENT.md (AGENT_FILE) names a test command other than the one the gate runs, or
 * null. The command is quoted for the user to see, never run.
 */
export function agentMdTestCommandWarning(agentMdPath: string, gate: ResolvedTestCommand | null): string | null {
  const markdown = readTextIfPresent(agentMdPath);
  const named = markdown === undefined ? null : findAgentMdTestCommand(markdown);
  if (!named || named === gate?.command) return null;
  const quoted = named.length > MAX_QUOTED_COMMAND ? `${named.slice(0, MAX_QUOTED_COMMAND - 1)}…` : named;
  const gateSays = gate ? `the gate runs \`${gate.command}\` (from ${gate.detail})` : 'the gate has no test command';
  return (
    `.ralph/AGENT.md names the test command \`${quoted}\`, which ralph does not run: ${gateSays}. ` +
    'Ralph runs only TEST_COMMAND, QUALITY_GATES or a command detected from the project manifests; set TEST_COMMAND in .ralphrc to use it'
  );
}

/** Something a template writes when it knows no command; running it would prove nothing. */
export function isPlaceholderCommand(command: string): boolean {
  const c = command.trim();
  return c === '' || /\{\{[A-Z_]+\}\}/.test(c) || /no (test|build|run) command/i.test(c);
}

const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^[ \t]*(```|~~~)/;

/**
 * The first command under a heading that mentions tests ("## Test", "### Running tests",
 * "## Testing"): the first command line of a fenced block, else the first `backticked` span.
 * Comment lines and a leading `$ ` prompt are skipped; backslash-continued lines are joined.
 */
export function findAgentMdTestCommand(markdown: string): string | null {
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const heading = HEADING.exec(lines[i]!);
    if (!heading || !/\btest/i.test(heading[2] ?? '')) continue;
    const level = heading[1]!.length;
    const end = sectionEnd(lines, i + 1, level);
    const command = commandInSection(lines.slice(i + 1, end));
    if (command) return command;
  }
  return null;
}

function sectionEnd(lines: string[], start: number, level: number): number {
  let inFence = false;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (heading && heading[1]!.length <= level) return i;
  }
  return lines.length;
}

function commandInSection(lines: string[]): string | null {
  let inFence = false;
  let pending = '';
  for (const raw of lines) {
    if (FENCE.test(raw)) {
      if (inFence && pending) return usable(pending);
      inFence = !inFence;
      pending = '';
      continue;
    }
    if (!inFence) continue;
    const line = raw.trim().replace(/^\$\s+/, '');
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const command = usable(`${pending}${line}`);
    if (command) return command;
    pending = '';
  }
  for (const raw of lines) {
    if (FENCE.test(raw)) break;
    const span = /`([^`]+)`/.exec(raw);
    const command = span ? usable(span[1]!) : null;
    if (command) return command;
  }
  return null;
}

function usable(command: string): string | null {
  const c = command.trim();
  return c === '' || isPlaceholderCommand(c) ? null : c;
}

// npm writes this test script on `npm init`; it always fails, so it is no test command.
const NPM_INIT_TEST = /no test specified/;

/** The usual test command for the project's build tool, from its files. */
export function detectTestCommand(projectDir: string): ResolvedTestCommand | null {
  const at = (name: string) => join(projectDir, name);
  const pkg = readJson(at('package.json'));
  const script = pkg?.scripts?.test;
  if (typeof script === 'string' && script.trim() !== '' && !NPM_INIT_TEST.test(script)) {
    return { command: `${nodeRunner(projectDir)} test`, source: 'detected', detail: 'package.json scripts.test' };
  }
  const pyproject = readTextIfPresent(at('pyproject.toml'));
  const pytestConfig =
    existsSync(at('pytest.ini')) ||
    existsSync(at('conftest.py')) ||
    (pyproject !== undefined && /pytest/.test(pyproject)) ||
    /\[(tool:)?pytest\]/.test(readTextIfPresent(at('setup.cfg')) ?? '') ||
    /\[pytest\]/.test(readTextIfPresent(at('tox.ini')) ?? '');
  if (pytestConfig) {
    const command = existsSync(at('uv.lock')) ? 'uv run pytest' : 'python3 -m pytest';
    return { command, source: 'detected', detail: 'pytest configuration' };
  }
  if (existsSync(at('Cargo.toml'))) return { command: 'cargo test', source: 'detected', detail: 'Cargo.toml' };
  if (existsSync(at('go.mod'))) return { command: 'go test ./...', source: 'detected', detail: 'go.mod' };
  return null;
}

function nodeRunner(projectDir: string): string {
  if (existsSync(join(projectDir, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(projectDir, 'yarn.lock'))) return 'yarn';
  if (existsSync(join(projectDir, 'bun.lock')) || existsSync(join(projectDir, 'bun.lockb'))) return 'bun run';
  return 'npm';
}

interface PackageJsonScripts {
  scripts?: Record<string, unknown>;
}

export function readPackageScripts(projectDir: string): Record<string, unknown> | undefined {
  return readJson(join(projectDir, 'package.json'))?.scripts;
}

function readJson(path: string): PackageJsonScripts | undefined {
  const text = readTextIfPresent(path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as PackageJsonScripts) : undefined;
  } catch {
    return undefined;
  }
}
