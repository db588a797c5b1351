// ESLint for lib/, tests/ and scripts/: the recommended rules without type information (fast),
// unused code as errors, and the layer rules — pure code (PURE_FILES) reaches no Node built-in,
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
  {
    selector: "CallExpression[callee.name='createRequire']",
    message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.',
  },
  {
    selector: "CallExpression[callee.name='require']",
    message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.',
  },
  { selector: 'ImportExpression', message: 'Pure code loads no module at run time: take the effect through deps or move it to lib/platform.' },
];

/**
 * Pure code: decisions with no I/O, kept in the room of the concept they decide (lib/breaker,
 * lib/limits, …), not in a folder of their own. These files reach no Node built-in and no zx, load
 * no module at run time, and import only other pure files, lib/state and lib/errors.ts (the last
 * is checked by tests/unit/architecture/layers.test.ts, which resolves each import).
 */
export const PURE_FILES = [
  'lib/agent-run/fallback-order.ts',
  'lib/agent-run/orphan-decision.ts',
  'lib/agents/agent-failure.ts',
  'lib/agents/agent-result.ts',
  'lib/agents/loop-context.ts',
  'lib/analysis/allowed-tools-suggestion.ts',
  'lib/analysis/error-detection.ts',
  'lib/analysis/permission-denials.ts',
  'lib/analysis/progress-evidence.ts',
  'lib/analysis/question-detection.ts',
  'lib/analysis/ralph-status.ts',
  'lib/analysis/response-analysis.ts',
  'lib/breaker/breaker-messages.ts',
  'lib/breaker/circuit-breaker.ts',
  'lib/breaker/guard-ranges.ts',
  'lib/breaker/stall-guard.ts',
  'lib/containment/guard-record.ts',
  'lib/exit-gate/completion-conflicts.ts',
  'lib/exit-gate/exit-gate.ts',
  'lib/exit-gate/exit-signals.ts',
  'lib/lifecycle/cost-note.ts',
  'lib/lifecycle/issue-ref.ts',
  'lib/lifecycle/lifecycle-actions.ts',
  'lib/lifecycle/lifecycle-comments.ts',
  'lib/limits/countdown.ts',
  'lib/limits/cumulative-usage.ts',
  'lib/limits/rate-window.ts',
  'lib/limits/reset-time.ts',
  'lib/limits/spend.ts',
  'lib/limits/usage-limit.ts',
  'lib/loop/loop-outcome.ts',
  'lib/loop/run-summary.ts',
  'lib/demo/demo-script.ts',
  'lib/monitor/run-facts.ts',
  'lib/plan/added-markers.ts',
  'lib/plan/fix-plan.ts',
  'lib/plan/item-evidence.ts',
  'lib/plan/plan-check-delta.ts',
  'lib/plan/plan-memory.ts',
  'lib/plan/plan-item-index.ts',
  'lib/plan/plan-reparse.ts',
  'lib/plan/remembered-item.ts',
  'lib/plan/verified-items.ts',
  'lib/verify/test-count.ts',
  'lib/verify/verification-result.ts',
  'lib/project/doctor-checks.ts',
  'lib/queue/queue-items.ts',
  'lib/queue/queue-order.ts',
  'lib/sandbox/sandbox-settings.ts',
  'lib/text/closest-name.ts',
  'lib/text/command-words.ts',
  'lib/text/find-cycle.ts',
  'lib/text/lines.ts',
  'lib/text/number-text.ts',
  'lib/text/redaction.ts',
  'lib/text/terminal-text.ts',
  'lib/text/text-table.ts',
  'lib/text/version.ts',
  'lib/verify/verification-result.ts',
  'lib/verify/verification.ts',
  'lib/web/web-rules.ts',
];

const NOT_CLI = forbidFolders(['cli'], 'Only the command line imports the command line.');

/**
 * Layer rules per lib folder: what each may not import (relative paths). ESLint keeps the last
 * matching entry's options for a rule, so each specific entry repeats NOT_CLI.
 */
const LAYERS = [
  { files: ['lib/**/*.ts'], ignores: ['lib/cli/**'], patterns: [NOT_CLI] },
  {
    files: ['lib/verify/**/*.ts'],
    patterns: [forbidFolders(['run-record', 'loop', 'cli'], 'Verification does not know the run record, the loop or the command line.'), NOT_CLI],
  },
  { files: ['lib/state/**/*.ts'], patterns: [forbidFolders(['loop', 'cli', 'monitor', 'agents'], 'State files know nothing above them.'), NOT_CLI] },
  {
    files: ['lib/agents/**/*.ts'],
    patterns: [forbidFolders(['loop', 'cli', 'monitor'], 'Agents know nothing of the loop, the command line or the monitor.'), NOT_CLI],
  },
  // Last, so that it holds for pure files in any folder above.
  {
    files: PURE_FILES,
    patterns: [
      {
        group: ['node:*', ...BUILTINS, ...BUILTINS.map((name) => `${name}/*`), 'zx'],
        message: 'Pure code: no Node built-in and no zx; take the effect through deps or move it out of PURE_FILES (eslint.config.js).',
      },
      forbidFolders(['cli', 'monitor', 'platform', 'run-record', 'parallel', 'fleet'], 'Pure code imports only pure files, lib/state and lib/errors.ts.'),
      NOT_CLI,
    ],
    syntax: NO_IO_SYNTAX,
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.bench/', 'tests/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        clearImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      // Matching control characters is this suite's job (terminal text, agent output, issue
      // titles are cleaned of them), so a control character in a pattern is never a slip.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // The web view's page script runs in the browser, not in Node.
    files: ['web/**/*.js'],
    languageOptions: {
      globals: { document: 'readonly', location: 'readonly', EventSource: 'readonly', URLSearchParams: 'readonly', console: 'readonly' },
    },
  },
  {
    // Tests read parsed JSON output by path (status.json, stream-json lines) in assertions.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...LAYERS.map(({ files, ignores, patterns, syntax }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      ...(syntax ? { 'no-restricted-syntax': ['error', ...syntax] } : {}),
    },
  })),
);
