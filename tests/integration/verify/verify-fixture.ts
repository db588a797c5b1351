// Copies a verification fixture project to a temp dir, and the gate options the tests share.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../../lib/platform/clock.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import type { RunGateOptions } from '../../../lib/verify/run-gate.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const REPO_VITEST = join(REPO_ROOT, 'node_modules', '.bin', 'vitest');
/** `vitest run` as a TEST_COMMAND: the path quoted, so a checkout under a folder with a space works. */
export const REPO_VITEST_RUN = `'${REPO_VITEST}' run`;

export interface FixtureCopy {
  dir: string;
  cleanup(): void;
}

export function copyFixture(name: 'ts-project' | 'python-project'): FixtureCopy {
  const dir = mkdtempSync(join(tmpdir(), `ralph-verify-${name}-`));
  cpSync(fileURLToPath(new URL(`../../fixtures/verify/${name}/`, import.meta.url)), dir, { recursive: true });
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function gateOptions(projectDir: string, overrides: Partial<RunGateOptions> = {}): RunGateOptions {
  return {
    commands: [],
    projectDir,
    env: { ...process.env },
    timeoutMs: 60_000,
    graceMs: 500,
    processRunner: nodeProcessRunner,
    clock: systemClock,
    ...overrides,
  };
}
