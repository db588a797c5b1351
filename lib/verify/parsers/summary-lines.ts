// The fallback when a runner wrote no structured report: the summary lines that vitest, jest,
// pytest and mocha print, and the lines that name their failures (`FAIL file > test`,
// `● suite › test`, `FAILED path::test - message`). Counts come from the summary; a runner whose
// summary is not found gives null. Pure.

import type { TestFailure, TestReport } from '../verification-result.js';
import { failureMessage, stripAnsi } from './failure-text.js';

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

type Reader = (lines: string[]) => { counts: Counts; failures: TestFailure[] } | null;

export function parseSummaryLines(text: string): TestReport | null {
  const lines = stripAnsi(text).split(/\r?\n/);
  for (const read of [readPytest, readJest, readVitest, readMocha]) {
    const found = read(lines);
    if (found) return { format: 'summary', ...found.counts, failures: found.failures };
  }
  return null;
}

// `==== 2 failed, 1 passed, 1 skipped, 1 error in 2.68s ====`
const PYTEST_SUMMARY = /^=+ (.*?) in [\d.]+s(?: \([^)]*\))? =+\s*$/;

const readPytest: Reader = (lines) => {
  const summary = lastMatch(lines, PYTEST_SUMMARY);
  if (!summary || !/\b(passed|failed|error|errors|skipped|no tests ran)\b/.test(summary[1]!)) return null;
  const n = tally(summary[1]!);
  const counts = {
    passed: n('passed') + n('xpassed'),
    failed: n('failed') + n('error') + n('errors'),
    skipped: n('skipped') + n('xfailed'),
  };
  const failures: TestFailure[] = [];
  for (const line of lines) {
    const m = /^(FAILED|ERROR) (\S+)(?: - (.*))?$/.exec(line);
    if (m) failures.push({ name: m[2]!, message: m[3] ?? '' });
  }
  return { counts, failures };
};

// `Tests:       1 failed, 1 skipped, 2 passed, 4 total`
const readJest: Reader = (lines) => {
  const summary = lastMatch(lines, /^Tests:\s+(.*\btotal)\s*$/);
  if (!summary) return null;
  const n = tally(summary[1]!);
  const counts = { passed: n('passed'), failed: n('failed'), skipped: n('skipped') + n('todo') + n('pending') };
  const failures: TestFailure[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*● (.+)$/.exec(line);
    if (m && !/^Console$/.test(m[1]!.trim())) failures.push({ name: m[1]!.trim(), message: messageAfter(lines, i) });
  });
  return { counts, failures: dedupe(failures) };
};

// `      Tests  1 failed | 1 passed | 1 skipped (3)`
const readVitest: Reader = (lines) => {
  const summary = lastMatch(lines, /^\s*Tests\s+(.+?)\s*\(\d+\)\s*$/);
  if (!summary) return null;
  const n = tally(summary[1]!);
  const counts = { passed: n('passed'), failed: n('failed'), skipped: n('skipped') + n('todo') };
  const failures: TestFailure[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*FAIL\s+(.+ > .+?)\s*$/.exec(line);
    if (m) failures.push({ name: m[1]!.replace(/\s+\[.*\]$/, ''), message: messageAfter(lines, i) });
  });
  return { counts, failures: dedupe(failures) };
};

// `  2 passing (10ms)` / `  1 failing` / `  1 pending`
const readMocha: Reader = (lines) => {
  const passing = lastMatch(lines, /^\s*(\d+) passing\b/);
  if (!passing) return null;
  const failing = lastMatch(lines, /^\s*(\d+) failing\s*$/);
  const pending = lastMatch(lines, /^\s*(\d+) pending\s*$/);
  return {
    counts: { passed: Number(passing[1]), failed: Number(failing?.[1] ?? 0), skipped: Number(pending?.[1] ?? 0) },
    failures: [],
  };
};

function lastMatch(lines: string[], pattern: RegExp): RegExpExecArray | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = pattern.exec(lines[i]!);
    if (m) return m;
  }
  return null;
}

/** `1 failed, 2 passed` or `1 failed | 2 passed` → count by word. */
function tally(text: string): (word: string) => number {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/(\d+) ([a-z]+)/g)) counts.set(m[2]!, (counts.get(m[2]!) ?? 0) + Number(m[1]));
  return (word) => counts.get(word) ?? 0;
}

// The error lines printed under a failure heading, skipping blank lines and source excerpts.
function messageAfter(lines: string[], index: number): string {
  const block: string[] = [];
  for (let i = index + 1; i < lines.length && block.length < 12; i++) {
    const line = lines[i]!;
    if (/^\s*(FAIL\s|● |⎯)/.test(line)) break;
    block.push(line);
  }
  return failureMessage(block.join('\n'), 3);
}

function dedupe(failures: TestFailure[]): TestFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => (seen.has(f.name) ? false : (seen.add(f.name), true)));
}
