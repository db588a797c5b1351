// Project detection, as in the Bash tool: type, framework, name, package manager and the build,
// test and run commands. Later rules win, as in the Bash tool: a directory with both
// package.json and pyproject.toml is a Python project.

import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HasCommand } from '../platform/find-executable.js';
import { detectNodeProject } from './detect-node-project.js';
import type { DetectedPart, ProjectContext } from './project-context.js';
import { readTextIfPresent } from '../platform/read-text.js';

export interface DetectProjectOptions {
  hasCommand: HasCommand;
}

export function detectProjectContext(dir: string, options: DetectProjectOptions): ProjectContext {
  let context: ProjectContext = { name: basename(dir), type: 'unknown', buildCommand: '', testCommand: '', runCommand: '' };
  const node = detectNodeProject(dir);
  if (node) context = { ...context, ...node, name: node.name ?? context.name };
  const python = detectPythonProject(dir, options.hasCommand);
  if (python) context = { ...context, ...python, name: python.name ?? context.name };
  const rust = detectRustProject(dir);
  if (rust) context = { ...context, ...rust, name: rust.name ?? context.name };
  const go = detectGoProject(dir);
  if (go) context = { ...context, ...go, name: go.name ?? context.name };
  return context;
}

function detectPythonProject(dir: string, hasCommand: HasCommand): DetectedPart | undefined {
  const pyproject = readTextIfPresent(join(dir, 'pyproject.toml'));
  const setupPy = readTextIfPresent(join(dir, 'setup.py'));
  if (pyproject === undefined && setupPy === undefined) return undefined;
  const name = matchFirst(pyproject, /^name\s*=\s*["']?([^"'\s]+)/m) ?? matchFirst(setupPy, /name\s*=\s*["']([^"']+)["']/);
  const haystack = `${pyproject ?? ''}\n${setupPy ?? ''}\n${readTextIfPresent(join(dir, 'requirements.txt')) ?? ''}`.toLowerCase();
  const framework = ['fastapi', 'django', 'flask'].find((candidate) => haystack.includes(candidate));
  const module = (name ?? 'main').replace(/-/g, '_');
  const useUv = existsSync(join(dir, 'uv.lock')) || hasCommand('uv');
  return {
    name,
    type: 'python',
    framework,
    packageManager: useUv ? 'uv' : 'pip',
    buildCommand: useUv ? 'uv sync' : 'pip install -e .',
    testCommand: useUv ? 'uv run pytest' : 'pytest',
    runCommand: useUv ? `uv run python -m ${module}` : `python -m ${module}`,
  };
}

function detectRustProject(dir: string): DetectedPart | undefined {
  const cargo = readTextIfPresent(join(dir, 'Cargo.toml'));
  if (cargo === undefined) return undefined;
  return {
    name: matchFirst(cargo, /^name\s*=\s*["']([^"']+)["']/m),
    type: 'rust',
    packageManager: 'cargo',
    buildCommand: 'cargo build',
    testCommand: 'cargo test',
    runCommand: 'cargo run',
  };
}

function detectGoProject(dir: string): DetectedPart | undefined {
  const goMod = readTextIfPresent(join(dir, 'go.mod'));
  if (goMod === undefined) return undefined;
  const module = matchFirst(goMod, /^module\s+(\S+)/m);
  return {
    name: module?.split('/').pop(),
    type: 'go',
    packageManager: 'go',
    buildCommand: 'go build ./...',
    testCommand: 'go test ./...',
    runCommand: 'go run .',
  };
}

function matchFirst(text: string | undefined, pattern: RegExp): string | undefined {
  if (text === undefined) return undefined;
  return pattern.exec(text)?.[1];
}
