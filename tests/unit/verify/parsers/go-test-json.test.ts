import { describe, expect, it } from 'vitest';
import { parseGoTestJson } from '../../../../lib/verify/parsers/go-test-json.js';
import { readReport } from './report-fixture.js';

describe('parseGoTestJson', () => {
  it('reads test2json events: leaf tests counted, parent of a failed subtest not counted twice, build failure as one failure', () => {
    const report = parseGoTestJson(readReport('go-test.jsonl'))!;
    expect(report).toMatchObject({ format: 'go-json', passed: 3, failed: 3, skipped: 1 });
    expect(report.failures).toEqual([
      { name: 'example.com/shop/cart TestTotal', message: 'cart_test.go:12: total = 20, want 30' },
      { name: 'example.com/shop/cart TestDiscount/half', message: 'cart_test.go:27: discount(100, half) = 40, want 50' },
      { name: 'example.com/shop/tax (build failed)', message: 'tax/tax.go:5:9: undefined: rate' },
    ]);
  });

  it('ignores non-JSON lines and gives null when there are no events', () => {
    expect(parseGoTestJson('# some build noise\nFAIL\n')).toBeNull();
    const mixed = 'noise\n{"Action":"pass","Package":"p","Test":"TestA"}\n{broken\n';
    expect(parseGoTestJson(mixed)).toEqual({ format: 'go-json', passed: 1, failed: 0, skipped: 0, failures: [] });
  });
});
