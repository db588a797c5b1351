// Reads `go test -json` (test2json events, one JSON object per line). Each test's last pass /
// fail / skip action counts; a parent test whose subtests failed is not counted again. A
// package that failed without a failing test (a build error) is one failure named after the
// package, with its output as the message. Pure.

import type { TestFailure, TestReport } from '../verification-result.js';
import { failureMessage } from './failure-text.js';

interface GoEvent {
  Action?: string;
  Package?: string;
  ImportPath?: string;
  Test?: string;
  Output?: string;
  /** Go 1.24+: on a package's fail event, the build (ImportPath) whose build-output explains it. */
  FailedBuild?: string;
}

const MAX_OUTPUT_LINES = 40;

export function parseGoTestJson(text: string): TestReport | null {
  const outcomes = new Map<string, { pkg: string; test: string; action: string }>();
  const output = new Map<string, string[]>();
  const packageFailed = new Map<string, string | undefined>();
  let events = 0;

  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('{')) continue;
    let event: GoEvent;
    try {
      event = JSON.parse(line) as GoEvent;
    } catch {
      continue;
    }
    if (typeof event.Action !== 'string') continue;
    events++;
    const pkg = event.Package ?? event.ImportPath ?? '';
    const key = `${pkg}\u0000${event.Test ?? ''}`;
    if (event.Action === 'output' || event.Action === 'build-output') {
      const lines = output.get(key) ?? [];
      if (lines.length < MAX_OUTPUT_LINES) lines.push(event.Output ?? '');
      output.set(key, lines);
    } else if (event.Test && (event.Action === 'pass' || event.Action === 'fail' || event.Action === 'skip')) {
      outcomes.set(key, { pkg, test: event.Test, action: event.Action });
    } else if (!event.Test && event.Action === 'fail') {
      packageFailed.set(pkg, event.FailedBuild);
    }
  }
  if (events === 0) return null;

  const report: TestReport = { format: 'go-json', passed: 0, failed: 0, skipped: 0, failures: [] };
  const tests = [...outcomes.values()];
  const parents = new Set<string>();
  for (const t of tests) {
    for (let i = t.test.lastIndexOf('/'); i > 0; i = t.test.lastIndexOf('/', i - 1)) parents.add(`${t.pkg}\u0000${t.test.slice(0, i)}`);
  }
  const hasSubtests = (t: { pkg: string; test: string }) => parents.has(`${t.pkg}\u0000${t.test}`);
  const failingPackages = new Set<string>();
  for (const t of tests) {
    if (hasSubtests(t)) continue;
    if (t.action === 'pass') report.passed++;
    else if (t.action === 'skip') report.skipped++;
    else {
      report.failed++;
      failingPackages.add(t.pkg);
      report.failures.push({ name: `${t.pkg} ${t.test}`, message: testOutput(output.get(`${t.pkg}\u0000${t.test}`)) });
    }
  }
  for (const [pkg, failedBuild] of packageFailed) {
    if (failingPackages.has(pkg)) continue;
    report.failed++;
    const lines = failedBuild ? output.get(`${failedBuild}\u0000`) : output.get(`${pkg}\u0000`);
    report.failures.push(packageFailure(pkg, lines));
  }
  return report;
}

// The test's own lines, without the runner's `=== RUN` / `--- FAIL:` bookkeeping.
function testOutput(lines: string[] | undefined): string {
  const kept = (lines ?? []).filter((l) => !/^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):)/.test(l));
  return failureMessage(kept.join(''));
}

function packageFailure(pkg: string, lines: string[] | undefined): TestFailure {
  const kept = (lines ?? []).filter((l) => !/^(FAIL|ok)\s/.test(l) && !/^# /.test(l));
  return { name: `${pkg || 'package'} (build failed)`, message: failureMessage(kept.join('')) || 'package failed' };
}
