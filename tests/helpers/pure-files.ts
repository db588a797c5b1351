// Pure code: decisions with no I/O, kept in the room of the concept they decide (lib/breaker,
// lib/limits, …), not in a folder of their own. The list of pure files is the one place the
// linter reads it, .oxlintrc.json: the override that forbids Node built-ins and zx. What the
// linter cannot say is checked here, on the syntax tree: a pure file loads no module at run time,
// neither by require(), createRequire() nor import().

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './run-cli.js';

/** The linter's configuration (JSON with comments). */
export const LINT_CONFIG = '.oxlintrc.json';

interface LintOverride {
  files: string[];
  rules?: Record<string, unknown>;
}

/** The configuration as data (read as TypeScript reads its own JSON with comments). */
export function readLintConfig(root = REPO_ROOT): { overrides: LintOverride[] } {
  const { config, error } = ts.parseConfigFileTextToJson(LINT_CONFIG, readFileSync(join(root, LINT_CONFIG), 'utf8'));
  if (error) throw new Error(`${LINT_CONFIG}: ${ts.flattenDiagnosticMessageText(error.messageText, ' ')}`);
  return config;
}

function forbidsBuiltins(override: LintOverride): boolean {
  const rule = override.rules?.['no-restricted-imports'];
  const patterns = Array.isArray(rule) ? (rule[1] as { patterns?: Array<{ group?: string[] }> }).patterns : undefined;
  return (patterns ?? []).some((p) => p.group?.includes('node:*'));
}

/** The pure files (`lib/…` paths): those the linter keeps from Node built-ins and zx. */
export function pureFiles(root = REPO_ROOT): string[] {
  const overrides = readLintConfig(root).overrides.filter(forbidsBuiltins);
  if (overrides.length !== 1) throw new Error(`${LINT_CONFIG}: expected one override forbidding Node built-ins, found ${overrides.length}`);
  return overrides[0]!.files;
}

/** `require`, `createRequire` or `import` when the node loads a module at run time. */
function loadingCall(node: ts.Node): string | undefined {
  if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) return 'require';
  if (!ts.isCallExpression(node)) return undefined;
  const callee = node.expression;
  if (callee.kind === ts.SyntaxKind.ImportKeyword) return 'import';
  return ts.isIdentifier(callee) && (callee.text === 'require' || callee.text === 'createRequire') ? callee.text : undefined;
}

function loadsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const name = loadingCall(node);
    if (name) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${name}()`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Each call in the given files that loads a module at run time (`lib/x.ts:3: import()`): a call
 * of `require` or `createRequire`, `import x = require('…')`, or an `import(…)` expression.
 * `import type` and `typeof import('…')` load nothing.
 */
export function runTimeLoads(files: string[], root = REPO_ROOT): string[] {
  return files.flatMap((file) => loadsIn(file, readFileSync(join(root, file), 'utf8')));
}
