// An agent that can write the project can swap `.ralph` (or a folder in it) for a link to a
// folder of its choosing, and back, over and over while ralph writes there: progress.json and
// the logs are written while the agent runs. Whatever the timing, ralph writes nothing outside
// the project and leaves nothing behind in `.ralph`. Also what else an agent may plant where
// ralph writes: a folder in a state file's place, a file under the next temp file's name.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { RalphError } from '../../../lib/errors.js';
import { appendJsonl, writeFileAtomic } from '../../../lib/state/atomic-write.js';
import { acquireProjectLock } from '../../../lib/state/lock.js';
import { isRefusedWrite, openNoFollow } from '../../../lib/state/no-follow.js';
import { ralphPaths } from '../../../lib/state/paths.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';
import { useTempDir } from './test-context.js';

const tempDir = useTempDir();

// Swaps `<project>/.ralph` for a link to `<outside>` and back, `cycles` times, then writes
// `<project>/done`. A `.ralph` ralph makes while the name is free is moved aside (`made-<n>`):
// still inside the project.
const SWAPPER = `
import { renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const [project, outside, cycles] = process.argv.slice(2);
const ralph = join(project, '.ralph'), real = join(project, 'real'), link = join(project, 'link');
let made = 0;
const putBack = (from) => {
  for (;;) {
    try { renameSync(from, ralph); return; } catch { renameSync(ralph, join(project, 'made-' + made++)); }
  }
};
symlinkSync(outside, link);
try {
  for (let i = 0; i < Number(cycles); i++) {
    renameSync(ralph, real);
    try { renameSync(link, ralph); } catch { putBack(real); continue; }
    renameSync(ralph, link);
    putBack(real);
  }
} finally {
  writeFileSync(join(project, 'done'), '');
}
`;

describe('a .ralph folder swapped for a link while ralph writes in it', () => {
  it('gets no file written outside the project, and nothing left in .ralph', async () => {
    const project = tempDir();
    const outside = tempDir();
    const script = join(tempDir(), 'swap.mjs');
    writeFileSync(script, SWAPPER);
    mkdirSync(join(project, '.ralph', 'logs'), { recursive: true });
    const swapper = spawn(process.execPath, [script, project, outside, '4000'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    swapper.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = once(swapper, 'exit');
    // A write may be refused or fail while the folder is swapped; none may land elsewhere.
    for (let i = 0; i < 1_000_000 && !existsSync(join(project, 'done')); i++) {
      try {
        if (i % 2) writeFileAtomic(join(project, '.ralph', 'progress.json'), `{"loop":${i}}\n`);
        else appendJsonl(join(project, '.ralph', 'logs', 'metrics.jsonl'), { loop: i });
      } catch {
        // refused or missing for a moment: the agent's doing
      }
    }
    await exited;
    expect(errors).toBe('');
    expect(readdirSync(outside)).toEqual([]);
    writeFileAtomic(join(project, '.ralph', 'progress.json'), '{"loop":"last"}\n');
    expect(readdirSync(join(project, '.ralph')).sort()).toEqual(['logs', 'progress.json']);
    expect(readFileSync(join(project, '.ralph', 'progress.json'), 'utf8')).toBe('{"loop":"last"}\n');
  });
});

describe('the project lock, taken and released while .ralph is swapped for a link', () => {
  it('is never made or removed outside the project', async () => {
    const project = tempDir();
    const outside = tempDir();
    const script = join(tempDir(), 'swap.mjs');
    writeFileSync(script, SWAPPER);
    mkdirSync(join(project, '.ralph'));
    const paths = ralphPaths(project);
    const swapper = spawn(process.execPath, [script, project, outside, '3000'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = once(swapper, 'exit');
    const seen = new Set<string>();
    for (let i = 0; i < 100_000 && !existsSync(join(project, 'done')); i++) {
      try {
        const lock = acquireProjectLock(paths, { pid: process.pid, logger: createMemoryLogger(), isAlive: () => false });
        // While held: the lock file is in the project, never where the link points.
        for (const name of readdirSync(outside)) seen.add(name.replace(/tmp-.*/, 'tmp-…'));
        lock.release();
      } catch {
        // refused or missing for a moment: the agent's doing
      }
    }
    await exited;
    for (const name of readdirSync(outside)) seen.add(name.replace(/tmp-.*/, 'tmp-…'));
    expect([...seen]).toEqual([]);
  });
});

describe('a .ralph folder replaced between two writes', () => {
  it('by a link: the next write is refused and nothing lands where the link points', () => {
    const project = tempDir();
    const outside = tempDir();
    const status = join(project, '.ralph', 'status.json');
    writeFileAtomic(status, '{"loop":1}\n');
    appendJsonl(join(project, '.ralph', 'logs', 'metrics.jsonl'), { loop: 1 });
    renameSync(join(project, '.ralph'), join(project, 'moved'));
    symlinkSync(outside, join(project, '.ralph'));
    const refused = (write: () => void) => {
      try {
        write();
        return false;
      } catch (error) {
        return isRefusedWrite(error);
      }
    };
    expect(refused(() => writeFileAtomic(status, '{"loop":2}\n'))).toBe(true);
    expect(refused(() => appendJsonl(join(project, '.ralph', 'logs', 'metrics.jsonl'), { loop: 2 }))).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(project, 'moved', 'status.json'), 'utf8')).toBe('{"loop":1}\n');
  });

  it('by a new folder: the next write goes to the folder the path names now', () => {
    const project = tempDir();
    const status = join(project, '.ralph', 'status.json');
    writeFileAtomic(status, '{"loop":1}\n');
    renameSync(join(project, '.ralph'), join(project, 'moved'));
    mkdirSync(join(project, '.ralph'));
    writeFileAtomic(status, '{"loop":2}\n');
    expect(readFileSync(status, 'utf8')).toBe('{"loop":2}\n');
    expect(readFileSync(join(project, 'moved', 'status.json'), 'utf8')).toBe('{"loop":1}\n');
  });
});

describe('a --parallel unit’s worktree replaced by a link', () => {
  it('gets no .ralph made or written where the link points', () => {
    const project = tempDir();
    const outside = tempDir();
    const unit = join(project, '.ralph', 'worktrees', 'unit-1');
    writeFileAtomic(join(unit, '.ralph', 'status.json'), '{"loop":1}\n');
    renameSync(unit, join(project, 'moved'));
    symlinkSync(outside, unit);
    let thrown: unknown;
    try {
      writeFileAtomic(join(unit, '.ralph', 'status.json'), '{"loop":2}\n');
    } catch (error) {
      thrown = error;
    }
    expect(isRefusedWrite(thrown)).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('a folder planted where ralph writes a state file', () => {
  it('stops the write with an error naming the file and what to do, and leaves no temp file', () => {
    const project = tempDir();
    const status = join(project, '.ralph', 'status.json');
    writeFileAtomic(status, '{"loop":1}\n');
    rmSync(status);
    mkdirSync(join(status, 'inside'), { recursive: true });
    let thrown: unknown;
    try {
      writeFileAtomic(status, '{"loop":2}\n');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RalphError);
    expect((thrown as RalphError).message).toBe('.ralph/status.json is a directory; ralph writes its state there');
    expect((thrown as RalphError).hint).toBe('remove or rename that directory (rm -r .ralph/status.json), then run ralph again');
    expect(readdirSync(join(project, '.ralph'))).toEqual(['status.json']);
  });
});

describe('a file planted under the name of the next temp file', () => {
  it('does not stop the write: another name is drawn', () => {
    const dir = join(tempDir(), '.ralph');
    const status = join(dir, 'status.json');
    writeFileAtomic(status, '{"loop":1}\n');
    // An agent that watched the names ralph drew may guess the next one and take it first.
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(0.5);
    try {
      symlinkSync(join(tempDir(), 'elsewhere'), join(dir, `.status.json.tmp-${process.pid}-80000000`));
      writeFileAtomic(status, '{"loop":2}\n');
    } finally {
      random.mockRestore();
    }
    expect(readFileSync(status, 'utf8')).toBe('{"loop":2}\n');
  });
});

describe('an error of a write through a folder it opened', () => {
  it('names the file and folder by their paths, not by the descriptor they were reached through', () => {
    const dir = join(tempDir(), '.ralph');
    mkdirSync(dir);
    writeFileAtomic(join(dir, 'status.json'), '{}\n');
    const missing = join(dir, 'missing.log');
    expect(() => openNoFollow(missing, constants.O_WRONLY)).toThrow(`ENOENT: no such file or directory, open '${missing}'`);
    const inMissingFolder = join(dir, 'logs', 'ralph.log');
    expect(() => openNoFollow(inMissingFolder, constants.O_WRONLY)).toThrow(`ENOENT: no such file or directory, open '${join(dir, 'logs')}'`);
  });
});
