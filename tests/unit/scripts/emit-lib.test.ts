// npm test builds dist/ with scripts/emit-lib.mjs (esbuild, no type check) instead of tsc: lib/
// is type-checked once, by the typecheck step, not a second time by the build. The build is the
// package's own with only tsc's step swapped, lib/ is still checked (with isolatedModules, so
// each file transpiles on its own to what tsc writes), and the script writes each module where
// tsc would, with tsc's meaning for what TypeScript adds to JavaScript.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const readJson = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8'));
const steps = (script: string) => script.split('&&').map((step) => step.trim());

const scratch = mkdtempSync(join(tmpdir(), 'emit-lib-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("npm test's build", () => {
  it("is the package's build with tsc's step replaced by scripts/emit-lib.mjs; lib/ is type-checked by the typecheck step, with isolatedModules", () => {
    const scripts = readJson('package.json').scripts as Record<string, string>;
    const [tsc, ...rest] = steps(scripts.build!);
    expect(tsc).toBe('tsc -b tsconfig.json');
    expect(steps(scripts['build:test']!)).toEqual(['node scripts/emit-lib.mjs', ...rest]);
    expect(scripts.test).toContain('build:test lint:format --after build:test ');
    // TypeScript 7's tsc (the native compiler, installed as typescript-native) checks lib/ and the tests.
    expect(scripts.typecheck).toBe('node node_modules/typescript-native/bin/tsc -p tsconfig.test.json');
    expect(readJson('tsconfig.test.json').include).toContain('lib/**/*.ts');
    expect(readJson('tsconfig.json').compilerOptions).toMatchObject({ isolatedModules: true, target: 'ES2022', rootDir: 'lib', outDir: 'dist' });
  });
});

describe('scripts/emit-lib.mjs', () => {
  it('writes each module at its path under the output, as tsc gives it: types gone, enums, parameter properties and class fields', async () => {
    const src = join(scratch, 'lib');
    const out = join(scratch, 'dist');
    mkdirSync(join(src, 'deep'), { recursive: true });
    writeFileSync(join(src, 'types.ts'), '(globalThis as Record<string, unknown>).typesModuleRan = true;\nexport interface Shape { sides: number }\n');
    writeFileSync(join(src, 'deep', 'colour.ts'), 'export enum Colour { Red = 1, Blue }\n');
    writeFileSync(
      join(src, 'main.ts'),
      [
        "import type { Shape } from './types.js';",
        "import { Colour } from './deep/colour.js';",
        "export type { Shape } from './types.js';",
        'export class Square implements Shape {',
        '  sides = 4;',
        '  label?: string;',
        '  constructor(public readonly size: number) {}',
        '}',
        'export const blue: Colour = Colour.Blue;',
        'export const red = Colour[1];',
        '',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'emit-lib.mjs'), src, out], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('emitted 3 modules');
    const main = await import(pathToFileURL(join(out, 'main.js')).href);
    expect(readFileSync(join(out, 'deep', 'colour.js'), 'utf8')).toContain('Colour');
    // An import used only as a type does not run its module; a field without a value is defined,
    // after the parameter property, as tsc defines them for ES2022: `size; sides = 4; label;`.
    expect((globalThis as Record<string, unknown>).typesModuleRan).toBeUndefined();
    expect(Object.keys(new main.Square(2))).toEqual(['size', 'sides', 'label']);
    expect({ blue: main.blue, red: main.red, size: new main.Square(2).size }).toEqual({ blue: 2, red: 'Red', size: 2 });
  });
});
