// Reads `cargo test` output: every `test result:` line (one per test binary and doc-test run)
// adds to the counts; `test <name> ... FAILED` lines name the failures, and the
// `---- <name> stdout ----` sections give each one's panic message. Pure.

import type { TestReport } from '../verification-result.js';
import { failureMessage, stripAnsi } from './failure-text.js';

const RESULT = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/;
const FAILED_TEST = /^test (.+?)(?: - should panic)? \.\.\. FAILED\s*$/;
const SECTION = /^---- (.+?) stdout ----$/;

export function parseCargoTest(text: string): TestReport | null {
  const lines = stripAnsi(text).split(/\r?\n/);
  const report: TestReport = { format: 'cargo', passed: 0, failed: 0, skipped: 0, failures: [] };
  const failed: string[] = [];
  const messages = new Map<string, string>();
  let sawResult = false;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const result = RESULT.exec(line);
    if (result) {
      sawResult = true;
      report.passed += Number(result[1]);
      report.failed += Number(result[2]);
      report.skipped += Number(result[3]);
      continue;
    }
    const failedTest = FAILED_TEST.exec(line);
    if (failedTest) {
      if (!failed.includes(failedTest[1]!)) failed.push(failedTest[1]!);
      continue;
    }
    const section = SECTION.exec(line);
    if (section) {
      const body: string[] = [];
      for (let j = i + 1; j < lines.length; j++) {
        const next = lines[j]!;
        if (SECTION.test(next) || /^failures:\s*$/.test(next) || RESULT.test(next)) break;
        body.push(next);
      }
      messages.set(section[1]!, panicMessage(body));
    }
  }
  if (!sawResult) return null;
  report.failures = failed.map((name) => ({ name, message: messages.get(name) ?? '' }));
  return report;
}

// The lines after "thread '…' panicked at file:line:col:" are the panic payload.
function panicMessage(body: string[]): string {
  const panic = body.findIndex((line) => /panicked at /.test(line));
  if (panic < 0) return failureMessage(body.join('\n'));
  const inline = /panicked at '(.*)', \S+$/.exec(body[panic]!); // before Rust 1.73 the message was inline
  if (inline) return inline[1]!;
  return failureMessage(body.slice(panic + 1).join('\n'));
}
