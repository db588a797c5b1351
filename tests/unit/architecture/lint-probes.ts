// Files planted in a throwaway tree laid out like this repository, each with the one mistake a
// rule of .oxlintrc.json exists to catch (or with what the configuration allows on purpose), and
// what the linter must say about it. tests/unit/architecture/lint-rules.test.ts lints the tree
// with the repository's own configuration and checks each file.

/** Where a probe goes, what it holds, and the rule the linter must report there (null: nothing). */
export interface LintProbe {
  file: string;
  code: string;
  /** `no-debugger` for a core rule, `typescript/no-explicit-any` for a TypeScript one. */
  expected: string | null;
  /** The lines that must each be reported for `expected`, and no other (default: any one). */
  lines?: number[];
}

/** What the linter says when it cannot parse a file at all (a strict-mode error: the rule's job). */
export const PARSE_ERROR = 'parse error';

/**
 * The core rules of the recommended set, each broken once in a JavaScript module (where none of
 * them is left to the type checker).
 */
const CORE: Array<[string, string]> = [
  ['constructor-super', 'export class A extends Object {\n  constructor() {}\n}\n'],
  ['for-direction', 'export function f(g) {\n  for (let i = 0; i < 10; i--) g(i);\n}\n'],
  ['getter-return', 'export const o = {\n  get a() {},\n};\n'],
  ['no-async-promise-executor', 'export const p = new Promise(async (resolve) => resolve(1));\n'],
  ['no-case-declarations', 'export function f(x) {\n  switch (x) {\n    case 1:\n      let y = 1;\n      return y;\n  }\n  return 0;\n}\n'],
  ['no-class-assign', 'class A {}\nA = null;\nexport { A };\n'],
  ['no-compare-neg-zero', 'export const f = (x) => x === -0;\n'],
  ['no-cond-assign', 'export function f(x) {\n  let y;\n  if (y = x) return y;\n  return 0;\n}\n'],
  ['no-const-assign', 'const a = 1;\na = 2;\nexport { a };\n'],
  ['no-constant-binary-expression', 'export const f = (x) => !x == null;\n'],
  ['no-constant-condition', 'export function f() {\n  if (true) return 1;\n  return 2;\n}\n'],
  ['no-debugger', 'export function f() {\n  debugger;\n}\n'],
  ['no-dupe-class-members', 'export class A {\n  a() {}\n  a() {}\n}\n'],
  ['no-dupe-else-if', 'export function f(x) {\n  if (x) return 1;\n  else if (x) return 2;\n  return 3;\n}\n'],
  ['no-dupe-keys', 'export const o = { a: 1, a: 2 };\n'],
  ['no-duplicate-case', 'export function f(x) {\n  switch (x) {\n    case 1:\n      return 1;\n    case 1:\n      return 2;\n  }\n  return 0;\n}\n'],
  ['no-empty', 'export function f(x) {\n  if (x) {\n  }\n}\n'],
  ['no-empty-character-class', 'export const r = /a[]/;\n'],
  ['no-empty-pattern', 'export function f({}) {\n  return 1;\n}\n'],
  ['no-empty-static-block', 'export class A {\n  static {}\n}\n'],
  ['no-ex-assign', 'export function f(g) {\n  try {\n    g();\n  } catch (e) {\n    e = 1;\n    return e;\n  }\n}\n'],
  ['no-extra-boolean-cast', 'export function f(x) {\n  if (!!x) return 1;\n  return 0;\n}\n'],
  ['no-fallthrough', 'export function f(x, g) {\n  switch (x) {\n    case 1:\n      g(1);\n    case 2:\n      g(2);\n  }\n}\n'],
  ['no-func-assign', 'function g() {}\ng = null;\nexport { g };\n'],
  ['no-global-assign', 'export function f() {\n  Math = null;\n}\n'],
  ['no-import-assign', "import { a } from './other.js';\nexport function f() {\n  a = 1;\n}\n"],
  ['no-invalid-regexp', "export const r = new RegExp('[');\n"],
  ['no-irregular-whitespace', 'export const a\u000b= 1;\n'],
  ['no-loss-of-precision', 'export const n = 9007199254740993;\n'],
  ['no-misleading-character-class', 'export const r = /[\u{1f44d}]/;\n'],
  ['no-new-native-nonconstructor', "export const s = new Symbol('a');\n"],
  ['no-obj-calls', 'export const m = Math();\n'],
  ['no-prototype-builtins', "export const f = (o) => o.hasOwnProperty('a');\n"],
  ['no-redeclare', 'var a = 1;\nvar a = 2;\nexport { a };\n'],
  ['no-regex-spaces', 'export const r = /a   b/;\n'],
  ['no-self-assign', 'export function f(x) {\n  x = x;\n  return x;\n}\n'],
  ['no-setter-return', 'export const o = {\n  set a(v) {\n    return v;\n  },\n};\n'],
  ['no-shadow-restricted-names', 'export function f(NaN) {\n  return NaN;\n}\n'],
  ['no-sparse-arrays', 'export const a = [1, , 2];\n'],
  ['no-this-before-super', 'export class A extends Object {\n  constructor() {\n    this.a = 1;\n    super();\n  }\n}\n'],
  ['no-unassigned-vars', 'let a;\nexport const f = () => a;\n'],
  ['no-unexpected-multiline', 'const f = (x) => x;\nconst g = f\n(1);\nexport { g };\n'],
  ['no-unreachable', 'export function f(g) {\n  return 1;\n  g();\n}\n'],
  ['no-unsafe-finally', 'export function f() {\n  try {\n    return 1;\n  } finally {\n    return 2;\n  }\n}\n'],
  ['no-unsafe-negation', 'export const f = (k, o) => !k in o;\n'],
  ['no-unsafe-optional-chaining', 'export const f = (o) => (o?.g)();\n'],
  ['no-unused-labels', 'export function f(g) {\n  a: g();\n}\n'],
  ['no-unused-private-class-members', 'export class A {\n  #a = 1;\n}\n'],
  ['no-unused-vars', 'const unused = 1;\nexport const a = 2;\n'],
  ['no-useless-assignment', 'export function f(g) {\n  let v = g();\n  v = 2;\n  return v;\n}\n'],
  ['no-useless-backreference', 'export const r = /(a)|\\1b/;\n'],
  ['no-useless-catch', 'export function f(g) {\n  try {\n    g();\n  } catch (e) {\n    throw e;\n  }\n}\n'],
  ['no-useless-escape', "export const s = '\\a';\n"],
  ['preserve-caught-error', 'export function f(g) {\n  try {\n    g();\n  } catch (e) {\n    throw new Error(`failed: ${e}`);\n  }\n}\n'],
  ['require-yield', 'export function* g() {\n  return 1;\n}\n'],
  ['use-isnan', 'export const f = (x) => x === NaN;\n'],
  ['valid-typeof', "export const f = (x) => typeof x === 'strnig';\n"],
  ['no-undef', 'export const a = notDeclaredAnywhere;\n'],
];

/**
 * Rules of the recommended set that the parser enforces in a module (strict mode): the file does
 * not parse at all, which fails the lint just the same.
 */
const STRICT_MODE: Array<[string, string]> = [
  ['no-dupe-args', 'export function f(a, a) {\n  return a;\n}\n'],
  ['no-octal', 'export const n = 071;\n'],
  ['no-delete-var', 'let a = 1;\ndelete a;\nexport { a };\n'],
  ['no-nonoctal-decimal-escape', "export const s = '\\8';\n"],
  ['no-with', 'export function f(o) {\n  with (o) {\n    return 1;\n  }\n}\n'],
];

/** The TypeScript rules of the recommended set, and the core rules it adds, each broken once. */
const TYPESCRIPT: Array<[string, string]> = [
  ['no-var', 'var a = 1;\nexport { a };\n'],
  ['prefer-const', 'let a = 1;\nexport { a };\n'],
  ['prefer-rest-params', 'export function f() {\n  return arguments;\n}\n'],
  ['prefer-spread', 'export const g = (f: (...a: number[]) => number, a: number[]) => f.apply(undefined, a);\n'],
  ['no-array-constructor', 'export const a = new Array(1, 2);\n'],
  ['no-unused-expressions', 'export function f(a: number) {\n  a + 1;\n}\n'],
  ['typescript/ban-ts-comment', "// @ts-ignore\nexport const a: number = 'x';\n"],
  ['typescript/no-duplicate-enum-values', 'export enum E {\n  A = 1,\n  B = 1,\n}\n'],
  ['typescript/no-empty-object-type', 'export interface I {}\n'],
  ['typescript/no-explicit-any', 'export const a: any = 1;\n'],
  ['typescript/no-extra-non-null-assertion', 'export const f = (a: { b: number } | null) => a!!.b;\n'],
  ['typescript/no-misused-new', 'export interface I {\n  new (): I;\n}\n'],
  ['typescript/no-namespace', 'export namespace N {\n  export const a = 1;\n}\n'],
  ['typescript/no-non-null-asserted-optional-chain', 'export const f = (a?: { b: number }) => a?.b!;\n'],
  ['typescript/no-require-imports', "const x = require('x');\nexport { x };\n"],
  ['typescript/no-this-alias', 'export class A {\n  f() {\n    const self = this;\n    return self;\n  }\n}\n'],
  ['typescript/no-unnecessary-type-constraint', 'export function f<T extends unknown>(a: T) {\n  return a;\n}\n'],
  ['typescript/no-unsafe-declaration-merging', 'export interface A {\n  a: number;\n}\nexport class A {}\n'],
  ['typescript/no-unsafe-function-type', 'export const f: Function = () => 1;\n'],
  ['typescript/no-wrapper-object-types', "export const s: String = 'a';\n"],
  ['typescript/prefer-as-const', "export const a = 'a' as 'a';\n"],
  ['typescript/prefer-namespace-keyword', 'declare module M {\n  const a: number;\n}\nexport {};\n'],
  ['typescript/triple-slash-reference', '/// <reference path="./other.d.ts" />\nexport const a = 1;\n'],
];

/** What the configuration allows on purpose, or where it does not look: nothing may be reported. */
const ALLOWED: LintProbe[] = [
  {
    // Unused arguments, variables and caught errors named with `_`, rest siblings, caught errors.
    file: 'lib/probe/unused-on-purpose.ts',
    code: 'export function f(_a: number, b: number) {\n  const _c = 1;\n  const { d: _d, ...rest } = { d: 1, e: 2 };\n  try {\n    return b + Object.keys(rest).length;\n  } catch (error) {\n    return 0;\n  }\n}\n',
    expected: null,
  },
  { file: 'lib/probe/control-characters.ts', code: 'export const ESC = /\\x1b\\[[0-9;]*m/g;\n', expected: null },
  { file: 'tests/probe/any-in-tests.test.ts', code: "export const status = JSON.parse('{}') as Record<string, any>;\n", expected: null },
  {
    file: 'scripts/probe/node-globals.mjs',
    code: 'export const facts = [process.pid, console, Buffer, URL, setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate, AbortController, AbortSignal, TextDecoder, TextEncoder, structuredClone, queueMicrotask, performance, fetch];\n',
    expected: null,
  },
  { file: 'web/probe.js', code: 'export const page = [document, location, EventSource, URLSearchParams, console];\n', expected: null },
  { file: 'tests/fixtures/probe/fixture.ts', code: 'debugger;\n', expected: null },
  { file: 'dist/probe.js', code: 'debugger;\n', expected: null },
];

/** A browser global is not a Node one: the page's globals stay in web/. */
const BROWSER_OUTSIDE_WEB: LintProbe = { file: 'scripts/probe/browser-global.mjs', code: 'export const d = document;\n', expected: 'no-undef' };

/** Every rule of the recommended sets, each broken in a file of its own, and what is allowed. */
export function ruleProbes(): LintProbe[] {
  return [
    ...CORE.map(([rule, code]) => ({ file: `scripts/probe/${rule}.mjs`, code, expected: rule })),
    ...STRICT_MODE.map(([rule, code]) => ({ file: `scripts/probe/strict-${rule}.mjs`, code, expected: PARSE_ERROR })),
    ...TYPESCRIPT.map(([rule, code]) => ({ file: `lib/probe/${rule.replace('/', '-')}.ts`, code, expected: rule })),
    BROWSER_OUTSIDE_WEB,
    ...ALLOWED,
  ];
}

const RESTRICTED = 'no-restricted-imports';

/** What pure code may not import, one line each, each binding (or re-exporting) a name of its own. */
const NOT_FOR_PURE_CODE: Array<(name: string) => string> = [
  (x) => `import { createHash as ${x} } from 'node:crypto';`,
  (x) => `import { readFileSync as ${x} } from 'fs';`,
  (x) => `import { readFile as ${x} } from 'fs/promises';`,
  (x) => `import type { Stats as ${x} } from 'node:fs';`,
  (x) => `import { $ as ${x} } from 'zx';`,
  (x) => `export { EOL as ${x} } from 'node:os';`,
  (x) => `const ${x} = import('node:crypto');`,
  ...['cli', 'monitor', 'platform', 'run-record', 'parallel', 'fleet'].map((folder) => (x: string) => `import { ${x} } from '../${folder}/probe.js';`),
];

/** Every line of NOT_FOR_PURE_CODE in one file, and an export of what it binds. */
function notForPureCode(): string {
  const lines = NOT_FOR_PURE_CODE.map((line, i) => line(`x${i}`));
  const bound = lines.flatMap((line, i) => (line.startsWith('export') ? [] : [`x${i}`]));
  return `${lines.join('\n')}\nexport { ${bound.join(', ')} };\n`;
}

/** What each guarded folder may not import (the command line is off limits to all of lib/). */
const FOLDER_RULES: Record<string, string[]> = {
  loop: ['cli'],
  verify: ['run-record', 'loop', 'cli'],
  state: ['loop', 'cli', 'monitor', 'agents'],
  agents: ['loop', 'cli', 'monitor'],
};

const importing = (source: string): string => `import { x } from '${source}';\nexport { x };\n`;

/**
 * The layer rules: each guarded folder refuses the folders above it, from any depth, and what is
 * allowed stays allowed. `pure` is the pure file whose room has no rules of its own.
 */
export function layerProbes(pure: string): LintProbe[] {
  const folders = Object.entries(FOLDER_RULES).flatMap(([folder, above]) =>
    above.flatMap((target) => [
      { file: `lib/${folder}/probe-${target}.ts`, code: importing(`../${target}/probe.js`), expected: RESTRICTED },
      { file: `lib/${folder}/deep/probe-${target}.ts`, code: importing(`../../${target}/deep/probe.js`), expected: RESTRICTED },
    ]),
  );
  const allowed = [
    {
      file: pure,
      code: "import { a } from './guard-ranges.js';\nimport { b } from '../state/paths.js';\nimport { c } from '../errors.js';\nexport const x = [a, b, c];\n",
      expected: null,
    },
    { file: 'lib/breaker/not-pure-probe.ts', code: importing('node:fs'), expected: null },
    { file: 'lib/platform/probe.ts', code: importing('node:fs'), expected: null },
    { file: 'lib/cli/probe.ts', code: importing('../cli/other.js'), expected: null },
    { file: 'lib/monitor/probe.ts', code: importing('../loop/run.js'), expected: null },
  ];
  return [...folders, ...allowed];
}

/**
 * Pure files holding every import pure code may not make, one per line: `files` are pure files in
 * rooms with rules of their own and without (the room's rules must not replace the pure ones).
 */
export function pureProbes(files: string[]): LintProbe[] {
  return files.map((file) => ({ file, code: notForPureCode(), expected: RESTRICTED, lines: NOT_FOR_PURE_CODE.map((_, i) => i + 1) }));
}

/** A pure file importing each of the given Node built-ins (`fs`, `fs/promises`, …), one per line. */
export function builtinsProbe(file: string, builtins: string[]): LintProbe {
  const lines = builtins.map((name, i) => `import * as b${i} from '${name}';`);
  const code = `${lines.join('\n')}\nexport { ${builtins.map((_, i) => `b${i}`).join(', ')} };\n`;
  return { file, code, expected: RESTRICTED, lines: lines.map((_, i) => i + 1) };
}

/** A pure file, and what the architecture test must find it loading at run time (`2: require()`). */
export interface LoadProbe {
  file: string;
  code: string;
  loads: string[];
}

/** Pure files that load a module at run time, which only the architecture test sees, and one that does not. */
export function runTimeLoadProbes(pure: string[]): LoadProbe[] {
  const probes: Array<[string, string[]]> = [
    [
      "declare const createRequire: (url: string) => (id: string) => unknown;\nexport const x = createRequire(import.meta.url)('node:crypto');\n",
      ['2: createRequire()'],
    ],
    ["declare const require: (id: string) => unknown;\nexport const x = require('./guard-ranges.js');\n", ['2: require()']],
    ["import x = require('./guard-ranges.js');\nexport { x };\n", ['1: require()']],
    ["export const x = import('./guard-ranges.js');\n", ['1: import()']],
    ['export const x = (name: string) => import(name);\n', ['1: import()']],
    // Types load nothing: an `import type`, and the type of a module.
    ["import type { A } from './guard-ranges.js';\nexport type B = A | typeof import('./guard-ranges.js');\n", []],
  ];
  return probes.map(([code, loads], i) => ({ file: pure[i]!, code, loads: loads.map((load) => `${pure[i]}:${load}`) }));
}
