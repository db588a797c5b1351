// Node project detection from package.json: TypeScript or JavaScript, framework, package
// manager (packageManager field, else lockfile) and the scripts that actually exist.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DetectedPart, PackageManager } from './project-context.js';

interface PackageJson {
  name?: unknown;
  scripts?: Record<string, unknown>;
  packageManager?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  peerDependencies?: Record<string, unknown>;
}

// First match wins, so meta-frameworks come before the libraries they are built on.
const FRAMEWORKS: ReadonlyArray<[dependency: string, framework: string]> = [
  ['next', 'nextjs'],
  ['nuxt', 'nuxt'],
  ['@nestjs/core', 'nestjs'],
  ['express', 'express'],
  ['fastify', 'fastify'],
  ['react', 'react'],
  ['vue', 'vue'],
  ['svelte', 'svelte'],
  ['@angular/core', 'angular'],
];

// `npm init` writes this test script; running it always fails, so it is no test command.
const NPM_INIT_TEST = /no test specified/;

export function detectNodeProject(dir: string): DetectedPart | undefined {
  let raw: string;
  try {
    raw = readFileSync(join(dir, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
  const pkg = parsePackageJson(raw);
  const deps = { ...pkg?.peerDependencies, ...pkg?.devDependencies, ...pkg?.dependencies };
  const hasTypeScript = pkg ? 'typescript' in deps : raw.includes('"typescript"');
  const packageManager = detectNodePackageManager(dir, pkg);
  const scripts = pkg?.scripts;
  const script = (name: string) => (pkg === undefined || typeof scripts?.[name] === 'string' ? name : undefined);
  const test = script('test');
  const realTest = test && !(typeof scripts?.test === 'string' && NPM_INIT_TEST.test(scripts.test)) ? test : undefined;
  return {
    name: typeof pkg?.name === 'string' && pkg.name.trim() ? pkg.name.trim() : undefined,
    type: hasTypeScript || existsSync(join(dir, 'tsconfig.json')) ? 'typescript' : 'javascript',
    framework: FRAMEWORKS.find(([dependency]) => dependency in deps)?.[1],
    packageManager,
    buildCommand: scriptCommand(packageManager, script('build')),
    testCommand: scriptCommand(packageManager, realTest),
    runCommand: scriptCommand(packageManager, script('start') ?? script('dev')),
  };
}

function parsePackageJson(raw: string): PackageJson | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as PackageJson) : undefined;
  } catch {
    return undefined;
  }
}

function detectNodePackageManager(dir: string, pkg: PackageJson | undefined): PackageManager {
  const declared = typeof pkg?.packageManager === 'string' ? pkg.packageManager.split('@')[0] : undefined;
  if (declared === 'npm' || declared === 'yarn' || declared === 'pnpm' || declared === 'bun') return declared;
  if (existsSync(join(dir, 'bun.lockb')) || existsSync(join(dir, 'bun.lock'))) return 'bun';
  if (existsSync(join(dir, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(dir, 'yarn.lock'))) return 'yarn';
  return 'npm';
}

function scriptCommand(manager: PackageManager, script: string | undefined): string {
  if (script === undefined) return '';
  switch (manager) {
    case 'npm':
      return script === 'test' || script === 'start' ? `npm ${script}` : `npm run ${script}`;
    case 'bun':
      return `bun run ${script}`;
    default:
      return `${manager} ${script}`;
  }
}
