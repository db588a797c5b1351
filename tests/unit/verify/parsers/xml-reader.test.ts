import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntities, readXml } from '../../../../lib/verify/parsers/xml-reader.js';

describe('readXml', () => {
  it('reads elements, attributes in either quote style, text, CDATA and skips comments and PIs', () => {
    const root = readXml(`<?xml version="1.0"?>
<!-- a comment with <tags> -->
<a x="1 &gt; 0" y='it&apos;s'><b>one &amp; two</b><c/><?pi data?><![CDATA[<raw> & text]]></a>`)!;
    expect(root.name).toBe('a');
    expect(root.attributes).toEqual({ x: '1 > 0', y: "it's" });
    expect(root.children.map((c) => c.name)).toEqual(['b', 'c']);
    expect(root.children[0]!.text).toBe('one & two');
    expect(root.text).toContain('<raw> & text');
  });

  it('does not expand entities declared in a DTD (no billion laughs, no external entities)', () => {
    const hostile = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<testsuite><testcase name="&lol2;"><failure message="&xxe;"/></testcase></testsuite>`;
    const root = readXml(hostile)!;
    const testCase = root.children[0]!;
    expect(testCase.attributes.name).toBe('&lol2;');
    expect(testCase.children[0]!.attributes.message).toBe('&xxe;');
  });

  it('decodes numeric character references but leaves invalid ones alone', () => {
    expect(decodeEntities('a&#10;b&#x41;&#0;&#xD800;&nbsp;')).toBe('a\nbA&#0;&#xD800;&nbsp;');
  });

  it('rejects mismatched tags, unterminated constructs and two roots', () => {
    for (const bad of ['<a><b></a>', '<a', '<a x=1/>', '<a><![CDATA[x</a>', '<a/><b/>', '<a>', '<a><!-- x</a>']) {
      expect(readXml(bad), bad).toBeNull();
    }
  });

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(readXml('<a>'.repeat(5000) + '</a>'.repeat(5000))).toBeNull();
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('<', '>', '/', 'a', '"', "'", '=', ' ', '&', ';', '!', '[', ']', '-', '?') }), (text) => {
        readXml(text);
      }),
      { numRuns: 500 },
    );
  });
});
