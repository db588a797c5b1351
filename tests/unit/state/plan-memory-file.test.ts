// The plan's memory beside the ledger: a change (an item done, one added) is one short line
// appended to its log, not the whole memory written again; the log is read only with the memory
// it was started for, a line cut short by a crash is not applied, a file another process replaced
// (or a link planted in its place) makes the next change write the memory whole, and a fleet job
// carries one file with the log folded in.

import { appendFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicWriteCount } from '../../../lib/state/atomic-write.js';
import { planMemoryPath } from '../../../lib/state/ledger-path.js';
import { applyChange, foldPlanMemoryLog, planMemoryLogPath, readLedgerPlan, saveLedgerPlan, type LedgerPlanItem } from '../../../lib/state/plan-memory-file.js';
import { loadPlanMemory, memoryChange, savePlanMemory } from '../../../lib/plan/plan-store.js';
import type { PlanMemory, RememberedItem } from '../../../lib/plan/plan-memory.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): RalphPaths {
  const root = mkdtempSync(join(tmpdir(), 'plan-memory-file-'));
  dirs.push(root);
  mkdirSync(join(root, 'project', '.ralph'), { recursive: true });
  return { ...ralphPaths(join(root, 'project')), ledger: join(root, 'state', 'ralph', 'p-1', 'ledger.json') };
}

const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };
const remembered = (text: string, position: number): RememberedItem => ({ key: text.toLowerCase(), text, position });
const texts = (memory: { open: readonly { text: string }[] } | undefined) => memory?.open.map((item) => item.text);

/** A memory of `n` items, and a function ticking its first item off (as a loop that finished one). */
function ticking(n: number): { memory: PlanMemory; tick: (memory: PlanMemory) => PlanMemory } {
  const memory = { open: Array.from({ length: n }, (_, i) => remembered(`Item ${i}: make part ${i} of the module work`, i)) };
  return { memory, tick: (last) => ({ open: last.open.slice(1) }) };
}

describe("the plan's memory written as a log of changes", () => {
  it('a 10,000-item memory ticked 200 times: written whole once, then one short line a tick', () => {
    const paths = project();
    const { memory, tick } = ticking(10_000);
    savePlanMemory(paths, memory, undefined);
    const file = planMemoryPath(paths.ledger!);
    const whole = statSync(file);
    const writes = atomicWriteCount();
    let last = memory;
    for (let i = 0; i < 200; i++) {
      const next = tick(last);
      savePlanMemory(paths, next, last);
      last = next;
    }
    expect(atomicWriteCount() - writes).toBe(0);
    expect(statSync(file).ino).toBe(whole.ino);
    expect(statSync(planMemoryLogPath(file)).size).toBeLessThan(200 * 20 + 100);
    expect(texts(loadPlanMemory(paths, logger))).toEqual(texts(last));
  });

  it('the log is folded into the memory once it passes its share', () => {
    const paths = project();
    const { memory, tick } = ticking(100);
    savePlanMemory(paths, memory, undefined);
    const writes = atomicWriteCount();
    let last = memory;
    for (let i = 0; i < 99; i++) {
      // A long reworded text each time: the log grows fast.
      const next = { open: [{ ...last.open[0]!, text: `${'x'.repeat(1000)} ${i}` }, ...tick(last).open.slice(1)] };
      savePlanMemory(paths, next, last);
      last = next;
    }
    // 16 KiB of log at most between foldings: a few foldings (each the memory and a new log), not one a change.
    expect(atomicWriteCount() - writes).toBeGreaterThan(2);
    expect(atomicWriteCount() - writes).toBeLessThan(20);
    expect(texts(loadPlanMemory(paths, logger))).toEqual(texts(last));
  });

  it('a log started for another writing of the memory is not read; a line cut short is not applied', () => {
    const paths = project();
    const file = planMemoryPath(paths.ledger!);
    const first = { open: [remembered('alpha', 0), remembered('beta', 1)] };
    savePlanMemory(paths, first, undefined);
    savePlanMemory(paths, { open: [first.open[1]!] }, first);
    const log = readFileSync(planMemoryLogPath(file), 'utf8');
    expect(log.split('\n')).toHaveLength(3);
    appendFileSync(planMemoryLogPath(file), '{"drop":[0],"set":[],"a');
    expect(readLedgerPlan(paths.ledger!, logger.warn)?.map((item) => item.text)).toEqual(['beta']);
    // The memory written again (a restore, a crash before its new log): the old log is not its own.
    saveLedgerPlan(paths.ledger!, paths.projectDir, first.open);
    writeFileSync(planMemoryLogPath(file), log);
    expect(readLedgerPlan(paths.ledger!, logger.warn)?.map((item) => item.text)).toEqual(['alpha', 'beta']);
  });

  it('a file replaced by another process, or a link in place of the log, makes the next change write the memory whole', () => {
    const paths = project();
    const file = planMemoryPath(paths.ledger!);
    const first = { open: [remembered('alpha', 0), remembered('beta', 1), remembered('gamma', 2)] };
    savePlanMemory(paths, first, undefined);
    // Another process (ralph --accept-item) writes the memory whole, with a new log.
    writeFileSync(`${file}.new`, JSON.stringify({ version: 1, project: paths.projectDir, open: [{ text: 'alpha', position: 0 }] }));
    renameSync(`${file}.new`, file);
    const second = { open: first.open.slice(1) };
    savePlanMemory(paths, second, first);
    expect(texts(loadPlanMemory(paths, logger))).toEqual(['beta', 'gamma']);
    const outside = join(dirs[0]!, 'outside.txt');
    writeFileSync(outside, "not ralph's\n");
    rmSync(planMemoryLogPath(file));
    symlinkSync(outside, planMemoryLogPath(file));
    const third = { open: second.open.slice(1) };
    savePlanMemory(paths, third, second);
    expect(readFileSync(outside, 'utf8')).toBe("not ralph's\n");
    expect(texts(loadPlanMemory(paths, logger))).toEqual(['gamma']);
    rmSync(planMemoryLogPath(file));
    linkSync(outside, planMemoryLogPath(file));
    savePlanMemory(paths, { open: [] }, third);
    expect(readFileSync(outside, 'utf8')).toBe("not ralph's\n");
    expect(texts(loadPlanMemory(paths, logger))).toEqual([]);
  });

  it('foldPlanMemoryLog leaves the memory file alone holding every change', () => {
    const paths = project();
    const file = planMemoryPath(paths.ledger!);
    const first = { open: [remembered('alpha', 0), remembered('beta', 1)] };
    savePlanMemory(paths, first, undefined);
    savePlanMemory(paths, { open: [first.open[1]!, remembered('delta', 2)] }, first);
    foldPlanMemoryLog(file, logger.warn);
    rmSync(planMemoryLogPath(file));
    expect(readLedgerPlan(paths.ledger!, logger.warn)?.map((item) => item.text)).toEqual(['beta', 'delta']);
  });
});

describe('memoryChange', () => {
  it('turns any memory into any other (dropped, reworded, added items), and finds none between the same texts', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const before = Array.from({ length: random(12) }, (_, i) => remembered(`item ${random(6)}`, i));
      const after: RememberedItem[] = [];
      for (const item of before) {
        const what = random(4);
        if (what === 0) continue;
        after.push(what === 1 ? { ...item, text: item.text.toUpperCase() } : item);
      }
      for (let i = random(3); i > 0; i--) after.push(remembered(`item ${random(9)}`, i));
      const change = memoryChange(before, after);
      const applied: LedgerPlanItem[] = before.map(({ text, position }) => ({ text, position }));
      if (change) applyChange(applied, change);
      expect(applied.map((item) => item.text)).toEqual(after.map((item) => item.text));
    }
    const same = [remembered('alpha', 0)];
    expect(memoryChange(same, [{ ...same[0]!, position: 4 }])).toBeUndefined();
  });
});
