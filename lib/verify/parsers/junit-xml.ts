// Reads a JUnit XML report (pytest `--junitxml`, and most other runners' JUnit reporters):
// each <testcase> passed, failed (<failure> or <error>) or skipped (<skipped>). A suite with
// no test cases (collection error) falls back to the suite's own counters.
//
// The XML is read by sax, a maintained streaming parser with no dependencies, as events: no tree
// is built, so a report of millions of cases costs its counts, not a copy of itself. A report is
// written by the project's tests, which the agent can change, so it is read as hostile: no DTD is
// processed, no entity is expanded beyond the five XML ones and character references (an entity a
// DTD declares stays as its text: no billion laughs, no external file), nesting deeper than
// MAX_DEPTH makes the report unreadable, and a failure's text is kept up to MAX_MESSAGE_CHARS.

import { createRequire } from 'node:module';
import type { SAXOptions, SAXParser, Tag } from 'sax';
import type { TestReport } from '../verification-result.js';
import { failureMessage } from './failure-text.js';

const MAX_DEPTH = 200;
const MAX_MESSAGE_CHARS = 64 * 1024;

// What sax has beyond its published types: the buffer limit, and strict entities (the five XML
// ones only, not HTML's).
type Sax = typeof import('sax') & { MAX_BUFFER_LENGTH: number };
type Parser = Omit<SAXParser, 'error'> & { error: Error | null };
const OPTIONS = { strictEntities: true, position: false } as SAXOptions;
let loaded: Sax | undefined;

/** sax, loaded the first time a report is read (a run whose gate writes none never loads it). */
function loadSax(): Sax {
  if (!loaded) {
    loaded = createRequire(import.meta.url)('sax') as Sax;
    // The whole report is already a string in memory: buffering a long attribute or text costs no
    // more than that, and sax's default limit (64 KiB) would refuse a long failure message.
    loaded.MAX_BUFFER_LENGTH = Infinity;
  }
  return loaded;
}

interface OpenCase {
  name: string;
  problem?: { element: string; message: string; type?: string; text: string };
  skipped: boolean;
}

interface SuiteCounts {
  name?: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export function parseJunitXml(text: string): TestReport | null {
  const report: TestReport = { format: 'junit-xml', passed: 0, failed: 0, skipped: 0, failures: [] };
  const reader = new JunitReader(report);
  const parser = loadSax().parser(true, OPTIONS) as Parser;
  parser.onopentag = (tag) => reader.open(tag as Tag);
  parser.onclosetag = () => reader.close();
  parser.ontext = (chunk) => reader.text(chunk);
  parser.oncdata = (chunk) => reader.text(chunk);
  parser.onerror = (error) => {
    // An unknown entity (`&lol;`, one a DTD declared) stays as its text; any other error is a report ralph cannot read.
    if (!/^Invalid character (entity|in entity name)/.test(error.message)) reader.broken = true;
    parser.error = null;
  };
  parser.write(text).close();
  if (reader.broken || !reader.sawRoot || reader.depth !== 0) return null;
  // A <testsuite> root is the one suite; under <testsuites>, every suite counts.
  if (reader.cases === 0) countFromSuites(reader.rootIsSuite ? reader.suites.slice(0, 1) : reader.suites, report);
  return report;
}

/** The report as it is read, one event at a time: the open elements, the open test case, the suites' counters. */
class JunitReader {
  broken = false;
  sawRoot = false;
  rootIsSuite = false;
  cases = 0;
  readonly suites: SuiteCounts[] = [];
  private readonly openNames: string[] = [];
  private testCase: OpenCase | undefined;

  constructor(private readonly report: TestReport) {}

  get depth(): number {
    return this.openNames.length;
  }

  open(tag: Tag): void {
    if (this.broken) return;
    const parent = this.openNames.at(-1);
    if (parent === undefined) {
      // One root, and it must be a JUnit one.
      if (this.sawRoot || (tag.name !== 'testsuites' && tag.name !== 'testsuite')) this.broken = true;
      this.sawRoot = true;
      this.rootIsSuite = tag.name === 'testsuite';
    }
    if (this.openNames.length >= MAX_DEPTH) this.broken = true;
    this.openNames.push(tag.name);
    const attributes = tag.attributes;
    if (tag.name === 'testsuite') this.suites.push(suiteCounts(attributes));
    if (tag.name === 'testcase') {
      const classname = attributes.classname;
      const name = attributes.name ?? '(unnamed test)';
      this.testCase = { name: classname ? `${classname}.${name}` : name, skipped: false };
    } else if (parent === 'testcase' && this.testCase) {
      if ((tag.name === 'failure' || tag.name === 'error') && !this.testCase.problem) {
        this.testCase.problem = { element: tag.name, message: attributes.message?.trim() ?? '', type: attributes.type, text: '' };
      } else if (tag.name === 'skipped') this.testCase.skipped = true;
    }
  }

  text(chunk: string): void {
    const problem = this.testCase?.problem;
    // A failure's own text and CDATA, not its children's.
    if (!problem || this.openNames.at(-1) !== problem.element || this.openNames.at(-2) !== 'testcase') return;
    if (problem.text.length < MAX_MESSAGE_CHARS) problem.text += chunk.slice(0, MAX_MESSAGE_CHARS - problem.text.length);
  }

  close(): void {
    const name = this.openNames.pop();
    if (name !== 'testcase' || !this.testCase) return;
    const { problem, skipped } = this.testCase;
    this.cases++;
    if (problem) {
      this.report.failed++;
      const message = failureMessage(problem.message ? problem.message : problem.text) || problem.type || problem.element;
      this.report.failures.push({ name: this.testCase.name, message });
    } else if (skipped) this.report.skipped++;
    else this.report.passed++;
    this.testCase = undefined;
  }
}

function suiteCounts(attributes: Record<string, string>): SuiteCounts {
  const count = (key: string) => {
    const value = Number(attributes[key] ?? 0);
    return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
  };
  return { name: attributes.name, tests: count('tests'), failures: count('failures'), errors: count('errors'), skipped: count('skipped') };
}

// A report without test cases: only the suites' counters say what happened.
function countFromSuites(suites: readonly SuiteCounts[], report: TestReport): void {
  for (const suite of suites) {
    const failed = suite.failures + suite.errors;
    report.failed += failed;
    report.skipped += suite.skipped;
    report.passed += Math.max(0, suite.tests - failed - suite.skipped);
    if (failed > 0) report.failures.push({ name: suite.name ?? 'test suite', message: `${failed} test(s) failed` });
  }
}
