// Reads the JSON report vitest (`--reporter=json`) and jest (`--json`) write: the same shape,
// `testResults[]` per file with `assertionResults[]` per test. A file that failed to load has
// no assertion results and a `message`; it counts as one failure named by the file. Pure.

import type { ReportFormat, TestReport } from '../verification-result.js';
import { failureMessage } from './failure-text.js';

interface AssertionResult {
  ancestorTitles?: unknown;
  title?: unknown;
  fullName?: unknown;
  status?: unknown;
  failureMessages?: unknown;
}

interface FileResult {
  name?: unknown;
  status?: unknown;
  message?: unknown;
  assertionResults?: unknown;
}

export interface JestJsonOptions {
  format: Extract<ReportFormat, 'vitest-json' | 'jest-json'>;
  /** File names are shown relative to this directory. */
  cwd?: string;
}

export function parseJestJson(text: string, options: JestJsonOptions): TestReport | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(data) || !Array.isArray(data.testResults)) return null;
  const report: TestReport = { format: options.format, passed: 0, failed: 0, skipped: 0, failures: [] };
  for (const file of data.testResults as FileResult[]) {
    if (!isObject(file)) continue;
    const fileName = relativeName(typeof file.name === 'string' ? file.name : '', options.cwd);
    const tests = Array.isArray(file.assertionResults) ? (file.assertionResults as AssertionResult[]) : [];
    for (const test of tests) {
      if (!isObject(test)) continue;
      const status = typeof test.status === 'string' ? test.status : '';
      if (status === 'passed') report.passed++;
      else if (status === 'failed') {
        report.failed++;
        report.failures.push({ name: testName(fileName, test), message: firstFailureMessage(test.failureMessages) });
      } else report.skipped++; // skipped, pending, todo, disabled
    }
    const message = typeof file.message === 'string' ? file.message : '';
    if (tests.length === 0 && file.status === 'failed') {
      report.failed++;
      report.failures.push({ name: fileName || '(test file)', message: failureMessage(message) || 'test file failed to run' });
    }
  }
  return report;
}

function testName(fileName: string, test: AssertionResult): string {
  const ancestors = Array.isArray(test.ancestorTitles) ? test.ancestorTitles.filter((t): t is string => typeof t === 'string') : [];
  const title = typeof test.title === 'string' ? test.title : typeof test.fullName === 'string' ? test.fullName : '(unnamed test)';
  return [fileName, ...ancestors, title].filter((part) => part !== '').join(' > ');
}

function firstFailureMessage(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  const first = messages.find((m): m is string => typeof m === 'string');
  return first ? failureMessage(first) : '';
}

function relativeName(name: string, cwd: string | undefined): string {
  if (!cwd || name === '') return name;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return name.startsWith(base) ? name.slice(base.length) : name;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
