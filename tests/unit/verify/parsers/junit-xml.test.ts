import { describe, expect, it } from 'vitest';
import { parseJunitXml } from '../../../../lib/verify/parsers/junit-xml.js';
import { readReport } from './report-fixture.js';

describe('parseJunitXml', () => {
  it('reads a recorded pytest report: failures and errors by classname.name with their messages, skips counted', () => {
    const report = parseJunitXml(readReport('pytest-junit.xml'))!;
    expect(report).toMatchObject({ format: 'junit-xml', passed: 1, failed: 3, skipped: 1 });
    expect(report.failures.map((f) => f.name)).toEqual(['tests.test_calc.test_add', 'tests.test_calc.TestCalc.test_neg', 'tests.test_calc.test_err']);
    expect(report.failures[0]!.message).toBe('assert -1 == 3\n+  where -1 = add(1, 2)');
    // The five XML entities are decoded in attribute values.
    expect(report.failures[1]!.message.split('\n')[0]).toBe('AssertionError: negatives <&> "quoted"');
    expect(report.failures[2]!.message).toContain("fixture 'missing_fixture' not found");
  });

  it('uses the failure text when there is no message attribute, and CDATA as text', () => {
    const xml = `<testsuite name="s" tests="2"><testcase classname="A" name="b"><failure><![CDATA[expected <1> but was <2>
    at A.b(A.java:3)]]></failure></testcase><testcase name="c"/></testsuite>`;
    expect(parseJunitXml(xml)).toEqual({
      format: 'junit-xml',
      passed: 1,
      failed: 1,
      skipped: 0,
      failures: [{ name: 'A.b', message: 'expected <1> but was <2>' }],
    });
  });

  it('falls back to the suite counters when there are no test cases', () => {
    const xml = '<?xml version="1.0"?><testsuites><testsuite name="collect" tests="3" failures="0" errors="1" skipped="1"/></testsuites>';
    expect(parseJunitXml(xml)).toEqual({
      format: 'junit-xml',
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: [{ name: 'collect', message: '1 test(s) failed' }],
    });
  });

  it('gives null for malformed XML or another document', () => {
    expect(parseJunitXml('<testsuite><testcase></testsuite>')).toBeNull();
    expect(parseJunitXml('<html><body/></html>')).toBeNull();
    expect(parseJunitXml('')).toBeNull();
  });
});
