// The layer rules in eslint.config.js catch what the layer test (relative imports only) cannot
// see: a Node built-in in pure code (PURE_FILES, wherever its room is), reached by import,
// createRequire or import(), and an upward import in a folder the linter guards.

import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/run-cli.js';

const eslint = new ESLint({ cwd: REPO_ROOT });
/** A file listed in PURE_FILES (eslint.config.js). */
const PURE = 'lib/breaker/circuit-breaker.ts';
/** A pure file in a folder with rules of its own (the pure rules must still hold). */
const PURE_IN_AGENTS = 'lib/agents/agent-result.ts';

async function ruleIdsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport { x };\n`, { filePath: join(REPO_ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('lint: layer rules', () => {
  it.each([
    ['a node: import', "import { createHash as x } from 'node:crypto';"],
    ['a bare built-in', "import { readFileSync as x } from 'fs';"],
    ['a built-in subpath', "import { readFile as x } from 'fs/promises';"],
    ['zx', "import { $ as x } from 'zx';"],
    ['an upward import', "import { x } from '../monitor/dashboard.js';"],
  ])('pure code refuses %s', async (_label, code) => {
    expect(await ruleIdsFor(PURE, code)).toContain('no-restricted-imports');
    expect(await ruleIdsFor(PURE_IN_AGENTS, code)).toContain('no-restricted-imports');
  });

  it.each([
    ['createRequire', "declare const createRequire: (u: string) => (m: string) => unknown;\nconst x = createRequire(import.meta.url)('node:crypto');"],
    ['a dynamic import', "const x = import('node:crypto');"],
  ])('pure code refuses %s', async (_label, code) => {
    expect(await ruleIdsFor(PURE, code)).toContain('no-restricted-syntax');
  });

  it('pure code may import pure code, state and the error type', async () => {
    const code = "import { a } from './guard-ranges.js';\nimport { b } from '../state/paths.js';\nimport { c } from '../errors.js';\nconst x = [a, b, c];";
    expect(await ruleIdsFor(PURE, code)).toEqual([]);
  });

  it('a file of the same room that is not pure may use Node built-ins', async () => {
    expect(await ruleIdsFor('lib/breaker/breaker-step.ts', "import { readFileSync as x } from 'node:fs';")).toEqual([]);
  });

  it.each([
    ['lib/loop/probe.ts', '../cli/ralph/ralph.js'],
    ['lib/verify/probe.ts', '../run-record/run-record.js'],
    ['lib/state/probe.ts', '../agents/registry.js'],
    ['lib/agents/probe.ts', '../monitor/dashboard.js'],
  ])('%s may not import %s', async (file, target) => {
    expect(await ruleIdsFor(file, `import { x } from '${target}';`)).toContain('no-restricted-imports');
  });

  it('other folders may use Node built-ins', async () => {
    expect(await ruleIdsFor('lib/platform/probe.ts', "import { readFileSync as x } from 'node:fs';")).toEqual([]);
  });
});
