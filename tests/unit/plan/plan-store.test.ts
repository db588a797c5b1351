// The plan's memory beside ralph's ledger: written when the items it holds change (not when only
// their positions move), read back by the next process, started again for a plan ralph wrote;
// the user's word (--accept-item) names an item by number, by text or by a part naming one item.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { contentMemoryPath } from '../../../lib/state/ledger-path.js';
import { planMemoryPath, readLedger } from '../../../lib/state/ledger.js';
import { readContentMemory } from '../../../lib/state/content-memory-file.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';
import type { HiddenItem, PlanMemory } from '../../../lib/plan/plan-memory.js';
import { findHeldItem, forgetPlanMemory, heldOpenItems, loadPlanMemory, parseItemSelector, savePlanMemory, withoutItem } from '../../../lib/plan/plan-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(plan: string): RalphPaths {
  const root = mkdtempSync(join(tmpdir(), 'plan-store-'));
  dirs.push(root);
  mkdirSync(join(root, 'project', '.ralph'), { recursive: true });
  writeFileSync(join(root, 'project', '.ralph', 'fix_plan.md'), plan);
  return { ...ralphPaths(join(root, 'project')), ledger: join(root, 'state', 'ralph', 'p-1', 'ledger.json') };
}

const warnings: string[] = [];
const logger = { warn: (message: string) => void warnings.push(message) };
const item = (key: string, position = 0) => ({ key, text: key, position });

describe('savePlanMemory and loadPlanMemory', () => {
  it('writes beside the ledger when the items change, and the next process reads them back', () => {
    const paths = project('');
    const memory: PlanMemory = { open: [item('alpha', 0), item('beta', 1)] };
    savePlanMemory(paths, memory, { open: [] });
    expect(loadPlanMemory(paths, logger)).toEqual(memory);
    expect(JSON.parse(readFileSync(planMemoryPath(paths.ledger!), 'utf8'))).toMatchObject({
      version: 1,
      open: [
        { text: 'alpha', position: 0 },
        { text: 'beta', position: 1 },
      ],
    });
  });

  it('keeps each item as its text and position only, one a line, when it writes the memory whole', () => {
    const paths = project('');
    const texts = Array.from({ length: 10_000 }, (_, i) => `Item ${i}: make **part ${i}** of the module work`);
    const open = texts.map((text, position) => ({ key: text.replace(/\*/g, '').toLowerCase(), text, position }));
    savePlanMemory(paths, { open }, undefined);
    const written = readFileSync(planMemoryPath(paths.ledger!), 'utf8');
    const textBytes = texts.reduce((sum, text) => sum + text.length, 0);
    // The texts, and per item its position and a few bytes of JSON: no normalised copy, no indentation.
    expect(written.length).toBeLessThan(textBytes + 40 * texts.length);
    expect(written.split('\n')).toHaveLength(texts.length + 3);
    expect(loadPlanMemory(paths, logger)).toEqual({ open });
  });

  it("reads a memory written in the older, indented form with each item's normalised text", () => {
    const paths = project('');
    mkdirSync(join(paths.ledger!, '..'), { recursive: true });
    const older = { version: 1, project: '/p', open: [{ key: 'write the parser', text: 'Write the **parser**', position: 2 }] };
    writeFileSync(planMemoryPath(paths.ledger!), `${JSON.stringify(older, null, 2)}\n`);
    expect(loadPlanMemory(paths, logger)).toEqual({ open: [{ key: 'write the parser', text: 'Write the **parser**', position: 2 }] });
  });

  it('does not write when only positions moved', () => {
    const paths = project('');
    savePlanMemory(paths, { open: [item('alpha', 0)] }, undefined);
    savePlanMemory(paths, { open: [item('alpha', 5)] }, { open: [item('alpha', 0)] });
    expect(loadPlanMemory(paths, logger).open[0]!.position).toBe(0);
  });

  it('an unreadable memory is reported and the run starts again from the plan', () => {
    const paths = project('');
    mkdirSync(join(paths.ledger!, '..'), { recursive: true });
    writeFileSync(planMemoryPath(paths.ledger!), '{"version":1,"open":"nope"}');
    warnings.length = 0;
    expect(loadPlanMemory(paths, logger)).toEqual({ open: [] });
    expect(warnings[0]).toMatch(/plan's memory .*plan-memory\.json is unreadable/);
  });

  it('a FIFO in place of the memory, the ledger or the content ids is reported, not a start that hangs', () => {
    const paths = project('');
    mkdirSync(join(paths.ledger!, '..'), { recursive: true });
    const fifos = [planMemoryPath(paths.ledger!), paths.ledger!, contentMemoryPath(paths.ledger!)];
    execFileSync('mkfifo', fifos);
    const warned: string[] = [];
    const warn = (message: string) => void warned.push(message);
    expect(loadPlanMemory(paths, { warn })).toEqual({ open: [] });
    expect(readLedger(paths.ledger!, warn)).toBeUndefined();
    expect(readContentMemory(paths.ledger!, warn)).toBeUndefined();
    expect(warned).toHaveLength(3);
    for (const message of warned) expect(message).toMatch(/named pipe \(FIFO\)/);
  });

  it('forgetPlanMemory: a plan ralph wrote starts it again', () => {
    const paths = project('');
    savePlanMemory(paths, { open: [item('alpha')] }, undefined);
    forgetPlanMemory(paths);
    expect(loadPlanMemory(paths, logger)).toEqual({ open: [] });
  });
});

describe('heldOpenItems', () => {
  it('lists the remembered items the plan shows otherwise, in memory order', () => {
    const paths = project('# Plan\n- [x] alpha\n- [ ] beta\n');
    savePlanMemory(paths, { open: [item('alpha', 0), item('beta', 1), item('gamma', 2)] }, undefined);
    expect(heldOpenItems(paths, [], logger).held).toEqual([
      { key: 'alpha', text: 'alpha', how: 'ticked without measured change' },
      { key: 'gamma', text: 'gamma', how: 'removed' },
    ]);
  });
});

describe('the user names an item', () => {
  const held: HiddenItem[] = [
    { key: 'write the parser', text: 'Write the parser', how: 'ticked without measured change' },
    { key: 'write the printer', text: 'write the printer', how: 'removed' },
  ];

  it('by number, by text as ralph normalises it, or by a part naming one item', () => {
    expect(findHeldItem(held, parseItemSelector('2'))).toEqual({ kind: 'found', item: held[1] });
    expect(findHeldItem(held, parseItemSelector('WRITE the  **parser**'))).toEqual({ kind: 'found', item: held[0] });
    expect(findHeldItem(held, parseItemSelector('printer'))).toEqual({ kind: 'found', item: held[1] });
  });

  it('a part naming two items, a number past the list or a blank is not an item', () => {
    expect(findHeldItem(held, parseItemSelector('write the'))).toMatchObject({ kind: 'ambiguous', matches: held });
    expect(findHeldItem(held, parseItemSelector('3'))).toEqual({ kind: 'not-found' });
    expect(findHeldItem(held, parseItemSelector('**'))).toEqual({ kind: 'not-found' });
  });

  it('withoutItem takes one remembered item of that text out of the memory', () => {
    const memory: PlanMemory = { open: [item('write the parser', 0), item('write the parser', 3), item('write the printer', 1)] };
    expect(withoutItem(memory, held[0]!).open).toEqual([item('write the parser', 3), item('write the printer', 1)]);
  });
});
