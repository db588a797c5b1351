// ESLint for lib/, tests/ and scripts/: the recommended rules without type information (fast),
// unused code as errors, and the layer rules — pure code (lib/core) reaches no Node built-in,
// and imports go down the layers only (the same lines as tests/unit/architecture/layers.test.ts,
// which also sees files ESLint is not run on).

import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const BUILTINS = builtinModules.filter((name) => !name.startsWith('_'));

/** A no-restricted-imports pattern forbidding relative imports into the named lib folders. */
function forbidFolders(folders, why) {
  return { regex: `^(?:\\.\\./)+(?:${folders.join('|')})/`, message: why };
}

const NO_IO_SYNTAX = [
  { selector: "CallExpression[callee.name='createRequire']", message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.' },
  { selector: "CallExpression[callee.name='require']", message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.' },
  { selector: 'ImportExpression', message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.' },
];

/** Layer rules per lib folder: what each may not import (relative paths). */
const LAYERS = [
  {
    files: ['lib/core/**/*.ts'],
    patterns: [
      { group: ['node:*', ...BUILTINS, ...BUILTINS.map((name) => `${name}/*`), 'zx'], message: 'lib/core is pure: no Node built-in and no zx; take the effect through deps or move it to lib/platform.' },
      { regex: '^(?:\\.\\./)+(?!state/|errors\\.js$)', message: 'lib/core imports only lib/core, lib/state and lib/errors.ts.' },
    ],
    syntax: NO_IO_SYNTAX,
  },
  { files: ['lib/loop/**/*.ts'], patterns: [forbidFolders(['cli'], 'The loop never imports the command line.')] },
  { files: ['lib/verify/**/*.ts'], patterns: [forbidFolders(['session-record', 'loop', 'cli'], 'Verification does not know the run record, the loop or the command line.')] },
  { files: ['lib/state/**/*.ts'], patterns: [forbidFolders(['loop', 'cli', 'monitor', 'agents'], 'State files know nothing above them.')] },
  { files: ['lib/agents/**/*.ts'], patterns: [forbidFolders(['loop', 'cli', 'monitor'], 'Agents know nothing of the loop, the command line or the monitor.')] },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.bench/', 'tests/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', clearImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', performance: 'readonly', fetch: 'readonly' },
    },
    rules: {
      // Matching control characters is this suite's job (terminal text, agent output, issue
      // titles are cleaned of them), so a control character in a pattern is never a slip.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read parsed JSON output by path (status.json, stream-json lines) in assertions.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...LAYERS.map(({ files, patterns, syntax }) => ({
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      ...(syntax ? { 'no-restricted-syntax': ['error', ...syntax] } : {}),
    },
  })),
);
