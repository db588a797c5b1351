// Reads a JUnit XML report (pytest `--junitxml`, and most other runners' JUnit reporters):
// each <testcase> passed, failed (<failure> or <error>) or skipped (<skipped>). A suite with
// no test cases (collection error) falls back to the suite's own counters. Pure.

import type { TestReport } from '../verification-result.js';
import { failureMessage } from './failure-text.js';
import { descendantsNamed, readXml, type XmlElement } from './xml-reader.js';

export function parseJunitXml(text: string): TestReport | null {
  const root = readXml(text);
  if (!root || (root.name !== 'testsuites' && root.name !== 'testsuite')) return null;
  const report: TestReport = { format: 'junit-xml', passed: 0, failed: 0, skipped: 0, failures: [] };
  const cases = descendantsNamed(root, 'testcase');
  for (const testCase of cases) {
    const problem = testCase.children.find((child) => child.name === 'failure' || child.name === 'error');
    if (problem) {
      report.failed++;
      report.failures.push({ name: caseName(testCase), message: problemMessage(problem) });
    } else if (testCase.children.some((child) => child.name === 'skipped')) {
      report.skipped++;
    } else {
      report.passed++;
    }
  }
  if (cases.length === 0) countFromSuites(root, report);
  return report;
}

function caseName(testCase: XmlElement): string {
  const name = testCase.attributes.name ?? '(unnamed test)';
  const classname = testCase.attributes.classname;
  return classname ? `${classname}.${name}` : name;
}

function problemMessage(problem: XmlElement): string {
  const attribute = problem.attributes.message?.trim();
  return failureMessage(attribute ? attribute : problem.text) || problem.attributes.type || problem.name;
}

// A report without test cases: only the suites' counters say what happened.
function countFromSuites(root: XmlElement, report: TestReport): void {
  const suites = root.name === 'testsuite' ? [root] : descendantsNamed(root, 'testsuite');
  for (const suite of suites) {
    const count = (key: string) => {
      const value = Number(suite.attributes[key] ?? 0);
      return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
    };
    const failed = count('failures') + count('errors');
    const skipped = count('skipped');
    report.failed += failed;
    report.skipped += skipped;
    report.passed += Math.max(0, count('tests') - failed - skipped);
    if (failed > 0) report.failures.push({ name: suite.attributes.name ?? 'test suite', message: `${failed} test(s) failed` });
  }
}
