// The boot reading (the boot id and the uptime) is taken several times a loop; the boot id cannot
// change while the process lives, so it is read once, and only the uptime again each time.

import { describe, expect, it } from 'vitest';
import { createBootReader } from '../../../lib/platform/boot-reading.js';

/** /proc's two files as a test gives them, counting each read. */
function fakeProc(uptimes: string[]) {
  const reads: string[] = [];
  const readText = (path: string) => {
    reads.push(path);
    if (path.endsWith('boot_id')) return 'b1e55ed0-0000-4000-8000-000000000001\n';
    if (path.endsWith('uptime')) return uptimes.shift() ?? '';
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };
  return { reads, readText };
}

describe('the boot reading', () => {
  it('reads the boot id once for the process, the uptime at every reading', () => {
    const proc = fakeProc(['12.5 3.1\n', '13.25 3.2\n', '20 4\n']);
    const read = createBootReader(proc.readText);
    expect([read(), read(), read()]).toEqual([
      { bootId: 'b1e55ed0-0000-4000-8000-000000000001', uptimeMs: 12_500 },
      { bootId: 'b1e55ed0-0000-4000-8000-000000000001', uptimeMs: 13_250 },
      { bootId: 'b1e55ed0-0000-4000-8000-000000000001', uptimeMs: 20_000 },
    ]);
    expect(proc.reads.filter((path) => path.endsWith('boot_id'))).toHaveLength(1);
    expect(proc.reads.filter((path) => path.endsWith('uptime'))).toHaveLength(3);
  });

  it('gives no reading where /proc has none, and tries again next time', () => {
    let present = false;
    const proc = fakeProc(['7 1\n']);
    const read = createBootReader((path) => {
      if (!present) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return proc.readText(path);
    });
    expect(read()).toBeUndefined();
    present = true;
    expect(read()).toEqual({ bootId: 'b1e55ed0-0000-4000-8000-000000000001', uptimeMs: 7000 });
  });
});
