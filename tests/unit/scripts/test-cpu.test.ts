import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../../scripts/test-cpu.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('scripts/test-cpu.mjs (where the suite’s CPU goes)', () => {
  it('sums the files of a RALPH_TEST_CPU_LOG, per folder, and lists the costliest first', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-test-cpu-'));
    dirs.push(dir);
    const log = join(dir, 'cpu.jsonl');
    const line = (file: string, user: number, system: number) => JSON.stringify({ file: join(dir, file), user, system });
    writeFileSync(log, [line('tests/unit/a.test.ts', 0.5, 0.1), line('tests/e2e/b.test.ts', 4, 1), line('tests/e2e/c.test.ts', 2, 0.5), ''].join('\n'));
    const result = spawnSync(process.execPath, [SCRIPT, log, '2'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        '3 files, 8.1 s of CPU (user + system)',
        '',
        '  CPU s  folder',
        '    7.5  tests/e2e',
        '    0.6  tests/unit',
        '',
        '  CPU s   user s    sys s  file',
        '    5.0      4.0      1.0  tests/e2e/b.test.ts',
        '    2.5      2.0      0.5  tests/e2e/c.test.ts',
        '',
      ].join('\n'),
    );
  });

  it('exits 2 with its usage when no file is named', () => {
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: node scripts/test-cpu.mjs');
  });
});
