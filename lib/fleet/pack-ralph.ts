// The package the fleet's jobs install ralph from: `npm pack` of the ralph that runs `init`,
// with its dependencies inside it (bundleDependencies), written into the repository beside the
// workflow. A job checks its sha256 against the one init wrote into the workflow and installs
// it without the registry, so what runs on Actions is byte for byte what the user ran here.
// The tarball is reproducible: npm pack gives every entry the same time stamp.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { RalphError } from '../errors.js';
import type { ProcessRunner } from '../platform/process.js';
import type { RalphPackagePin } from './workflow.js';

/** The folder of the repository the package goes into. */
export const PACKAGE_DIR = '.github/ralph';

interface PackageJson {
  name: string;
  version: string;
  files?: string[];
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

export interface PackOptions {
  /** ralph's installed package (package.json, bin/, dist/, …). */
  packageRoot: string;
  projectDir: string;
  runner: ProcessRunner;
  env: NodeJS.ProcessEnv;
}

/** Packs ralph into <project>/.github/ralph/ and returns its pin (path and sha256). */
export async function packRalph(options: PackOptions): Promise<RalphPackagePin> {
  const pkg = JSON.parse(readFileSync(join(options.packageRoot, 'package.json'), 'utf8')) as PackageJson;
  const stage = mkdtempSync(join(tmpdir(), 'ralph-pack-'));
  try {
    const staged = join(stage, 'package');
    stagePackage(options.packageRoot, pkg, staged);
    const out = join(options.projectDir, PACKAGE_DIR);
    mkdirSync(out, { recursive: true });
    const packed = await options.runner.run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out, staged], {
      cwd: stage,
      env: { ...options.env, npm_config_update_notifier: 'false' },
      timeoutMs: 180_000,
    });
    const name = packed.stdout.trim().split(/\r?\n/).at(-1) ?? '';
    if (packed.code !== 0 || !/^[\w.@+-]+\.tgz$/.test(name)) {
      const why = packed.spawnError ? packed.spawnError.message : (packed.stderr.trim().split(/\r?\n/)[0] ?? `exit code ${packed.code}`);
      throw new RalphError('pack_failed', `npm pack of ralph ${pkg.version} failed: ${why}`, {
        hint: 'ralph-fleet init packs the ralph you run (npm must be on PATH); check npm --version',
      });
    }
    const file = join(out, name);
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    return { version: pkg.version, path: relative(options.projectDir, file).split('\\').join('/'), sha256 };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** A copy of the package's published files and of its dependencies, declared bundled. */
function stagePackage(root: string, pkg: PackageJson, staged: string): void {
  mkdirSync(staged, { recursive: true });
  const dependencies = Object.keys(pkg.dependencies ?? {});
  for (const entry of pkg.files ?? []) {
    if (entry.startsWith('!')) continue; // npm pack applies the exclusions itself
    const name = entry.replace(/\/$/, '');
    try {
      cpSync(join(root, name), join(staged, name), { recursive: true, verbatimSymlinks: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  for (const name of ['README.md', 'LICENSE']) {
    try {
      cpSync(join(root, name), join(staged, name));
    } catch {
      // optional
    }
  }
  const resolveFrom = createRequire(join(root, 'package.json'));
  for (const dependency of dependencies) {
    const dir = dirname(resolveFrom.resolve(`${dependency}/package.json`));
    cpSync(dir, join(staged, 'node_modules', dependency), { recursive: true, verbatimSymlinks: true });
  }
  // No scripts: the tarball holds the built files, nothing is built or run on install.
  const { scripts: _scripts, devDependencies: _dev, overrides: _overrides, allowScripts: _allow, ...published } = pkg;
  writeFileSync(join(staged, 'package.json'), `${JSON.stringify({ ...published, bundleDependencies: dependencies }, null, 2)}\n`);
}

/** The integrity (`sha512-…`) the npm registry gives for `<package>@<version>`. */
export async function fetchIntegrity(spec: string, runner: ProcessRunner, env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  const viewed = await runner.run('npm', ['view', spec, 'dist.integrity'], { cwd, env: { ...env, npm_config_update_notifier: 'false' }, timeoutMs: 60_000 });
  const integrity = viewed.stdout.trim();
  if (viewed.code !== 0 || !/^sha512-[A-Za-z0-9+/]+={0,2}$/.test(integrity)) {
    const why = viewed.spawnError ? viewed.spawnError.message : (viewed.stderr.trim().split(/\r?\n/).find(Boolean) ?? `exit code ${viewed.code}`);
    throw new RalphError('registry_failed', `Could not read the integrity of ${spec} from the npm registry: ${why}`, {
      hint: 'ralph-fleet init records it once so that every job checks the agent CLI it installs; check your network and npm config, then run it again',
    });
  }
  return integrity;
}
