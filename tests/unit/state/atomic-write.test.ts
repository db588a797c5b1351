import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendJsonl, sameBytesReadCount, writeFileAtomic, writeJsonAtomic } from '../../../lib/state/atomic-write.js';
import { transpileForChild } from './child-build.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();

describe('writeFileAtomic', () => {
  it('creates missing parent directories and replaces the whole file', () => {
    const path = join(tempDir(), 'a', 'b', 'status.json');
    writeFileAtomic(path, 'first version, quite long');
    writeFileAtomic(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(readdirSync(join(path, '..'))).toEqual(['status.json']);
  });

  it('applies the requested mode exactly, and keeps an existing mode when none is given', () => {
    const dir = tempDir();
    const secret = join(dir, '.claude_session_id');
    writeFileAtomic(secret, 'x', { mode: 0o600 });
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    writeFileAtomic(secret, 'y');
    expect(statSync(secret).mode & 0o777).toBe(0o600);

    const open = join(dir, 'status.json');
    writeFileAtomic(open, 'x');
    chmodSync(open, 0o640);
    writeFileAtomic(open, 'y');
    expect(statSync(open).mode & 0o777).toBe(0o640);
  });

  it('leaves a file that already holds the bytes untouched, unless its mode or kind differs', () => {
    const dir = tempDir();
    const path = join(dir, 'status.json');
    writeFileAtomic(path, 'same');
    const before = statSync(path);
    writeFileAtomic(path, 'same');
    expect(statSync(path).ino).toBe(before.ino);
    writeFileAtomic(path, 'same', { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileAtomic(path, 'other');
    expect(readFileSync(path, 'utf8')).toBe('other');

    // A symlink to a file with the same bytes is still replaced by a file of ralph's own.
    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'same');
    const link = join(dir, 'progress.json');
    symlinkSync(elsewhere, link);
    writeFileAtomic(link, 'same');
    expect(lstatSync(link).isFile()).toBe(true);
  });

  it('reads a file back to compare only when the bytes are the ones it wrote there last (a timestamped view of the same size is just replaced)', () => {
    const dir = tempDir();
    const path = join(dir, 'status.json');
    const reads = sameBytesReadCount();
    writeFileAtomic(path, '{"at":"12:00:01"}');
    writeFileAtomic(path, '{"at":"12:00:02"}');
    writeFileAtomic(path, '{"at":"12:00:03"}');
    expect(sameBytesReadCount() - reads).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('{"at":"12:00:03"}');

    // The same bytes again: the file is read (something else may have written it since) and left alone.
    const before = statSync(path);
    writeFileAtomic(path, '{"at":"12:00:03"}');
    expect(sameBytesReadCount() - reads).toBe(1);
    expect(statSync(path).ino).toBe(before.ino);

    // Changed behind ralph's back to other bytes of the same size: the same bytes are written back.
    writeFileSync(path, '{"at":"forged!!"}');
    writeFileAtomic(path, '{"at":"12:00:03"}');
    expect(readFileSync(path, 'utf8')).toBe('{"at":"12:00:03"}');
  });

  it('writes the same bytes again when asked evenIfSame, and still replaces a link rather than writing through it', () => {
    const dir = tempDir();
    const path = join(dir, 'index');
    writeFileAtomic(path, 'same');
    const before = statSync(path);
    writeFileAtomic(path, 'same', { evenIfSame: true });
    expect(statSync(path).ino).not.toBe(before.ino);

    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'outside');
    const link = join(dir, 'linked-index');
    symlinkSync(elsewhere, link);
    writeFileAtomic(link, 'ours', { evenIfSame: true, mode: 0o600 });
    expect(lstatSync(link).isFile()).toBe(true);
    expect(readFileSync(link, 'utf8')).toBe('ours');
    expect(readFileSync(elsewhere, 'utf8')).toBe('outside');
  });

  it('writes pretty JSON with a trailing newline', () => {
    const path = join(tempDir(), 'x.json');
    writeJsonAtomic(path, { a: 1, b: [2] });
    expect(readFileSync(path, 'utf8')).toBe('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}\n');
  });

  it('removes temp files left by dead writers, but not those of live ones', () => {
    const dir = tempDir();
    const path = join(dir, 'status.json');
    const dead = join(dir, '.status.json.tmp-999999999-deadbeef');
    const live = join(dir, `.status.json.tmp-${process.ppid}-cafebabe`);
    writeFileSync(dead, 'half');
    writeFileSync(live, 'in progress');
    writeFileAtomic(path, 'ok');
    expect(readdirSync(dir).sort()).toEqual([`.status.json.tmp-${process.ppid}-cafebabe`, 'status.json']);
  });
});

describe('appendJsonl', () => {
  it('appends one line per value', () => {
    const path = join(tempDir(), 'logs', 'metrics.jsonl');
    appendJsonl(path, { loop: 1 });
    appendJsonl(path, { loop: 2, note: 'line\nbreak' });
    expect(readFileSync(path, 'utf8')).toBe('{"loop":1}\n{"loop":2,"note":"line\\nbreak"}\n');
  });

  it('starts a new line after a partial line left by a killed writer', () => {
    const path = join(tempDir(), 'metrics.jsonl');
    writeFileSync(path, '{"loop":1}\n{"loop":2,"dur');
    appendJsonl(path, { loop: 3 });
    expect(readFileSync(path, 'utf8').split('\n')).toEqual(['{"loop":1}', '{"loop":2,"dur', '{"loop":3}', '']);
  });

  it('never interleaves lines from concurrent writers', async () => {
    const dir = tempDir();
    const path = join(dir, 'metrics.jsonl');
    transpileForChild(['state/atomic-write.ts', 'state/process-alive.ts', 'state/no-follow.ts', 'errors.ts'], dir);
    const script = join(dir, 'append.mjs');
    writeFileSync(
      script,
      `import { appendJsonl } from './state/atomic-write.js';
       const [path, id] = process.argv.slice(2);
       for (let i = 0; i < 200; i++) appendJsonl(path, { id, i, pad: 'x'.repeat(2000) });`,
    );
    const children = [1, 2, 3, 4].map((id) => spawn(process.execPath, [script, path, String(id)], { stdio: 'inherit' }));
    await Promise.all(children.map((child) => once(child, 'exit')));
    // A blank line may appear (a reader glimpsed another's write in progress); never a torn one.
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(800);
    for (const line of lines) expect(JSON.parse(line).pad).toHaveLength(2000);
  });
});

describe('a writer killed with SIGKILL at any moment', () => {
  const TRIALS = 30;
  const PARALLEL = 6;
  const A_SIZE = 300_000;
  const B_SIZE = 120_000;
  let workDir: string;
  let script: string;
  const contents = (tag: string, size: number) => `${JSON.stringify({ status: tag, last_action: tag, filler: tag.repeat(size) }, null, 2)}\n`;
  const A = contents('a', A_SIZE);
  const B = contents('b', B_SIZE);

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'ralph-kill-'));
    transpileForChild(['state/atomic-write.ts', 'state/process-alive.ts', 'state/no-follow.ts', 'errors.ts'], workDir);
    script = join(workDir, 'rewrite.mjs');
    // Rewrites status.json forever, alternating two contents; says "ready" after the first write.
    writeFileSync(
      script,
      `import { writeFileAtomic } from './state/atomic-write.js';
       const [target, a, b] = process.argv.slice(2);
       const contents = (tag, size) => JSON.stringify({ status: tag, last_action: tag, filler: tag.repeat(size) }, null, 2) + '\\n';
       const A = contents('a', Number(a)), B = contents('b', Number(b));
       writeFileAtomic(target, A);
       process.stdout.write('ready\\n');
       for (let i = 1; ; i++) writeFileAtomic(target, i % 2 ? B : A);`,
    );
  });

  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  async function killOneWriter(dir: string): Promise<string> {
    const target = join(dir, 'status.json');
    const child = spawn(process.execPath, [script, target, String(A_SIZE), String(B_SIZE)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    await once(child.stdout, 'data'); // at least one complete write has happened
    // The kill moment is random; what is asserted must hold for every moment.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 25));
    child.kill('SIGKILL');
    await exited;
    return readFileSync(target, 'utf8');
  }

  it('always leaves status.json whole: the old or the new content', async () => {
    const dirs = Array.from({ length: TRIALS }, (_, i) => join(workDir, `project-${i}`));
    // A few writers at a time: spawning node dominates the time of this test.
    for (let i = 0; i < TRIALS; i += PARALLEL) {
      const texts = await Promise.all(dirs.slice(i, i + PARALLEL).map(killOneWriter));
      texts.forEach((text, j) => {
        expect(text === A || text === B, `trial ${i + j}: torn file of ${text.length} bytes`).toBe(true);
      });
    }
    for (const dir of dirs) {
      // Whatever a killed writer left behind is an obviously-named temp file…
      for (const name of readdirSync(dir)) expect(name).toMatch(/^(status\.json|\.status\.json\.tmp-\d+-[0-9a-f]{8})$/);
      // …and the next write cleans it up.
      writeFileAtomic(join(dir, 'status.json'), A);
      expect(readdirSync(dir)).toEqual(['status.json']);
    }
  });
});
