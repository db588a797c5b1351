// Reads TAP (Test Anything Protocol) output, as `node --test`, tape, bats and prove print it.
// Only leaf tests count: a result line whose subtests came just before it (deeper indentation)
// is a suite summary. `# SKIP` counts as skipped; `# TODO` too (its failure is expected).
// Failure messages come from the YAML block under a `not ok` line (`error:` or `message:`),
// names from the `# Subtest:` lines above. Pure.

import type { TestReport } from '../verification-result.js';
import { failureMessage, stripAnsi } from './failure-text.js';

const RESULT = /^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*)$/;
const SUBTEST = /^(\s*)# Subtest: (.*)$/;
const PLAN = /^\s*1\.\.\d+/;
const EMPTY_PLAN = /^1\.\.0(?:\s*(?:#.*)?)?$/;
const DIRECTIVE = /\s+#\s*(SKIP|TODO)\b.*$/i;

interface ResultLine {
  indent: number;
  ok: boolean;
  description: string;
  directive: 'skip' | 'todo' | null;
  yaml: string[];
}

export function parseTap(text: string): TestReport | null {
  const lines = stripAnsi(text).split(/\r?\n/);
  const results: ResultLine[] = [];
  const subtestNames = new Map<number, string>();
  let current: ResultLine | null = null;
  let inYaml = false;
  let sawTap = false;
  const names: string[] = [];

  for (const line of lines) {
    if (inYaml && current) {
      if (/^\s*\.\.\.\s*$/.test(line)) inYaml = false;
      else current.yaml.push(line);
      continue;
    }
    if (/^\s*---\s*$/.test(line) && current) {
      inYaml = true;
      continue;
    }
    if (/^TAP version \d+/.test(line) || PLAN.test(line)) sawTap = true;
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      subtestNames.set(subtest[1]!.length, subtest[2]!.trim());
      continue;
    }
    const match = RESULT.exec(line);
    if (!match) continue;
    const indent = match[1]!.length;
    const rest = match[4] ?? '';
    const directive = DIRECTIVE.exec(rest)?.[1]?.toLowerCase() as 'skip' | 'todo' | undefined;
    current = { indent, ok: match[2] === 'ok', description: rest.replace(DIRECTIVE, '').trim(), directive: directive ?? null, yaml: [] };
    results.push(current);
    names.push(qualifiedName(current, subtestNames));
    // Names of subtests deeper than this line belong to finished blocks.
    for (const depth of [...subtestNames.keys()]) if (depth > indent) subtestNames.delete(depth);
  }
  // `1..0`: a TAP producer that planned, and ran, no test.
  if (results.length === 0 && lines.some((line) => EMPTY_PLAN.test(line))) return { format: 'tap', passed: 0, failed: 0, skipped: 0, failures: [] };
  if (results.length === 0 || (!sawTap && results.length < 2)) return null;

  const report: TestReport = { format: 'tap', passed: 0, failed: 0, skipped: 0, failures: [] };
  results.forEach((result, index) => {
    const previous = results[index - 1];
    if (previous && previous.indent > result.indent) return; // a suite: its subtests counted
    if (result.directive) report.skipped++;
    else if (result.ok) report.passed++;
    else {
      report.failed++;
      report.failures.push({ name: names[index]!, message: yamlMessage(result.yaml) });
    }
  });
  return report;
}

function qualifiedName(result: ResultLine, subtests: Map<number, string>): string {
  const parents = [...subtests.entries()]
    .filter(([depth]) => depth < result.indent)
    .sort(([a], [b]) => a - b)
    .map(([, name]) => name);
  return [...parents, result.description || '(unnamed test)'].join(' > ');
}

// `error: 'text'`, `error: |-` followed by indented lines, or `message: …`.
function yamlMessage(yaml: string[]): string {
  for (let i = 0; i < yaml.length; i++) {
    const field = /^(\s*)(error|message):\s*(.*)$/.exec(yaml[i]!);
    if (!field) continue;
    const value = field[3]!.trim();
    if (value === '|-' || value === '|' || value === '>-' || value === '>') {
      const indent = field[1]!.length;
      const block: string[] = [];
      for (let j = i + 1; j < yaml.length; j++) {
        const line = yaml[j]!;
        if (line.trim() !== '' && line.length - line.trimStart().length <= indent) break;
        block.push(line.trim());
      }
      return failureMessage(block.join('\n'));
    }
    return failureMessage(unquote(value));
  }
  return '';
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  return value;
}
