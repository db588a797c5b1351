import fc from 'fast-check';
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

  it('rejects mismatched tags, unterminated constructs and two roots', () => {
    for (const bad of [
      '<testsuite><a></testsuite>',
      '<testsuite',
      '<testsuite x=1/>',
      '<testsuite><![CDATA[x</testsuite>',
      '<testsuite/><testsuite/>',
      '<testsuite>',
      '<testsuite><!-- x</testsuite>',
    ]) {
      expect(parseJunitXml(bad), bad).toBeNull();
    }
  });
});

describe('parseJunitXml on a hostile report (the agent can change the tests that write it)', () => {
  it('expands no entity a DTD declares (no billion laughs, no external file), and decodes only the XML ones and character references', () => {
    const hostile = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<testsuite><testcase name="&lol2;"><failure message="&xxe;"/></testcase><testcase name="a&#x41;&#66;&#0;&nbsp;&amp;"/></testsuite>`;
    const report = parseJunitXml(hostile)!;
    expect(report).toMatchObject({ passed: 1, failed: 1, failures: [{ name: '&lol2;', message: '&xxe;' }] });
    expect(parseJunitXml(hostile.replace('<failure message="&xxe;"/>', '<failure>&xxe;</failure>'))!.failures[0]!.message).toBe('&xxe;');
  });

  it('counts a report of 200,000 cases, and one whose failure message is 1 MiB long', () => {
    const many = `<testsuites><testsuite>${'<testcase classname="a" name="b"/>'.repeat(200_000)}<testcase name="c"><skipped/></testcase></testsuite></testsuites>`;
    expect(parseJunitXml(many)).toMatchObject({ passed: 200_000, skipped: 1, failed: 0 });
    const long = `<testsuite><testcase name="t"><failure message="${'x'.repeat(1024 * 1024)}">${'y'.repeat(1024 * 1024)}</failure></testcase></testsuite>`;
    const report = parseJunitXml(long)!;
    expect(report.failed).toBe(1);
    expect(report.failures[0]!.message).toHaveLength(1024 * 1024);
    // Without a message attribute, the text is read up to 64 KiB.
    expect(parseJunitXml(long.replace(/ message="x+"/, ''))!.failures[0]!.message).toHaveLength(64 * 1024);
  });

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(parseJunitXml('<testsuites>' + '<a>'.repeat(5000) + '</a>'.repeat(5000) + '</testsuites>')).toBeNull();
    expect(parseJunitXml('<testsuites>' + '<a>'.repeat(150) + '</a>'.repeat(150) + '</testsuites>')).toMatchObject({ passed: 0, failed: 0 });
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('<', '>', '/', 'a', 'testcase', 'testsuite', '"', "'", '=', ' ', '&', ';', '!', '[', ']', '-', '?', '#') }),
        (text) => {
          parseJunitXml(text);
        },
      ),
      { numRuns: 500 },
    );
  });
});
