// The run's plan reads fix_plan.md twice a loop, and most loops change nothing in it: the work
// each reading does follows what changed. The same text (judged on the text read, not on the
// file's times) is not parsed again; a check that changes no remembered item keeps the memory,
// so plan-memory.json and its log are not written again; which control files the open items name is worked
// out once for the same open items.

import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planMemoryPath } from '../../../lib/state/ledger.js';
import { ralphPaths, type RalphPaths } from '../../../lib/state/paths.js';
import { newRunPlan, type RunPlan } from '../../../lib/plan/plan-view.js';
import { loadPlanMemory, readPlanAgain } from '../../../lib/plan/plan-store.js';
import { planMemoryLogPath } from '../../../lib/state/plan-memory-file.js';
import type { PlanMemory, RememberedItem } from '../../../lib/plan/plan-memory.js';
import { createMemoryLogger } from '../../helpers/memory-logger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(plan: string): RalphPaths {
  const root = mkdtempSync(join(tmpdir(), 'run-plan-'));
  dirs.push(root);
  mkdirSync(join(root, 'project', '.ralph'), { recursive: true });
  writeFileSync(join(root, 'project', '.ralph', 'fix_plan.md'), plan);
  return { ...ralphPaths(join(root, 'project')), ledger: join(root, 'state', 'ralph', 'p-1', 'ledger.json') };
}

function runPlan(paths: RalphPaths, memory?: PlanMemory): RunPlan {
  return newRunPlan({ paths, optionalSections: ['Optional'], requiresPlanComplete: true, dryRun: false, logger: createMemoryLogger() }, memory);
}

const NO_CHANGE = { newContent: false, changed: false };
const PLAN = '# Plan\n- [ ] write the parser\n- [ ] write the printer\n- [x] set up\n';
const STAMP = new Date('2026-01-02T03:04:05Z');

/** Writes the plan with the same modification time each time: a reader trusting the file's times would miss the change. */
function writePlan(paths: RalphPaths, text: string): void {
  writeFileSync(paths.fixPlan, text);
  utimesSync(paths.fixPlan, STAMP, STAMP);
}

describe('RunPlan: the plan read again', () => {
  it('the same text is parsed once: a refresh gives back the view it gave before', () => {
    const paths = project(PLAN);
    const plan = runPlan(paths);
    const first = plan.refresh(NO_CHANGE);
    writeFileSync(paths.fixPlan, PLAN);
    expect(plan.refresh(NO_CHANGE)).toBe(first);
    expect(plan.refresh({ newContent: true, changed: true })).toBe(first);
  });

  it('a changed text is parsed again, whatever the file times say', () => {
    const paths = project('');
    writePlan(paths, PLAN);
    const plan = runPlan(paths);
    const first = plan.refresh(NO_CHANGE);
    writePlan(paths, PLAN.replace('- [ ] write the parser', '- [x] write the parser'));
    const second = plan.refresh({ newContent: true, changed: true });
    expect(second).not.toBe(first);
    expect(second?.blocking).toEqual({ open: 1, done: 2 });
    expect(plan.openItems.map((item) => item.key)).toEqual(['write the printer']);
  });

  it('an unreadable plan is read again each time, and is open until it can be read', () => {
    const paths = project(PLAN);
    const plan = runPlan(paths);
    plan.refresh(NO_CHANGE);
    rmSync(paths.fixPlan);
    mkdirSync(paths.fixPlan);
    expect(plan.refresh(NO_CHANGE)?.openItems).toContain('the plan itself: .ralph/fix_plan.md is a directory, not a file');
    expect(plan.hiddenNote).toMatch(/cannot be read in full/);
    rmSync(paths.fixPlan, { recursive: true });
    writeFileSync(paths.fixPlan, PLAN);
    expect(plan.refresh(NO_CHANGE)?.blocking).toEqual({ open: 2, done: 1 });
    expect(plan.hiddenNote).toBeUndefined();
  });

  it('readPlanAgain: the last reading for the same text and optional sections, a new one otherwise', () => {
    const paths = project(PLAN);
    const sections = ['Optional'];
    const first = readPlanAgain(paths, sections, undefined);
    expect(readPlanAgain(paths, sections, first)).toBe(first);
    expect(readPlanAgain(paths, ['Optional'], first)).not.toBe(first);
    writeFileSync(paths.fixPlan, `${PLAN}- [ ] write the docs\n`);
    const changed = readPlanAgain(paths, sections, first);
    expect(changed).not.toBe(first);
    expect('view' in changed.read && changed.read.keys).toEqual(['write the parser', 'write the printer', 'set up', 'write the docs']);
    rmSync(paths.fixPlan);
    const absent = readPlanAgain(paths, sections, changed);
    expect(absent.read).toEqual({ view: null, keys: [] });
    expect(readPlanAgain(paths, sections, absent)).toBe(absent);
  });
});

describe('RunPlan: the memory kept when no item changed', () => {
  it('keeps the same open items, and writes plan-memory.json only when they change', () => {
    const paths = project(PLAN);
    const plan = runPlan(paths);
    plan.refresh(NO_CHANGE);
    const open = plan.openItems;
    const files = () =>
      [planMemoryPath(paths.ledger!), planMemoryLogPath(planMemoryPath(paths.ledger!))].map((file) => [statSync(file).ino, statSync(file).size]);
    const written = files();
    writeFileSync(paths.fixPlan, PLAN);
    plan.refresh({ newContent: true, changed: true });
    plan.refresh(NO_CHANGE);
    expect(plan.openItems).toBe(open);
    expect(files()).toEqual(written);
    writeFileSync(paths.fixPlan, `${PLAN}- [ ] write the docs\n`);
    plan.refresh(NO_CHANGE);
    expect(plan.openItems).not.toBe(open);
    expect(plan.openItems.map((item) => item.key)).toEqual(['write the parser', 'write the printer', 'write the docs']);
    expect(files()).not.toEqual(written);
    expect(loadPlanMemory(paths, createMemoryLogger()).open.map((item) => item.key)).toEqual(['write the parser', 'write the printer', 'write the docs']);
  });
});

describe('RunPlan: the control files the open items name', () => {
  /** Remembered items whose texts count each time they are read. */
  function countedMemory(texts: string[]): { memory: PlanMemory; reads: () => number } {
    let reads = 0;
    const open = texts.map((text, position): RememberedItem => {
      const key = text.toLowerCase();
      return {
        key,
        position,
        get text() {
          reads++;
          return text;
        },
      };
    });
    return { memory: { open }, reads: () => reads };
  }

  it('are worked out once for the same open items, and again when they change', () => {
    const texts = Array.from({ length: 50 }, (_, i) => `write part ${i}`);
    const paths = project(`# Plan\n${texts.map((text) => `- [ ] ${text}\n`).join('')}`);
    const { memory, reads } = countedMemory(texts);
    const plan = runPlan(paths, memory);
    plan.refresh(NO_CHANGE);
    expect(plan.openItems[0]).toBe(memory.open[0]);
    const before = reads();
    expect(plan.openItemsName('AGENT.md')).toBe(false);
    expect(plan.openItemsName('fix_plan.md')).toBe(false);
    const scanned = reads() - before;
    expect(scanned).toBe(2 * texts.length);
    // Every loop asks again, twice: with the same open items, no text is read.
    plan.refresh(NO_CHANGE);
    const afterRefresh = reads();
    for (let loop = 0; loop < 5; loop++) {
      expect(plan.openItemsName('AGENT.md')).toBe(false);
      expect(plan.openItemsName('fix_plan.md')).toBe(false);
    }
    expect(reads()).toBe(afterRefresh);
    writeFileSync(paths.fixPlan, `# Plan\n${texts.map((text) => `- [ ] ${text}\n`).join('')}- [ ] note the build in .ralph/AGENT.md\n`);
    plan.refresh(NO_CHANGE);
    expect(plan.openItemsName('AGENT.md')).toBe(true);
    expect(plan.openItemsName('fix_plan.md')).toBe(false);
  });

  it('an item ticked each loop: only the items that changed are read again, and the answer follows them', () => {
    const texts = Array.from({ length: 200 }, (_, i) => (i === 1 ? 'note the build in .ralph/AGENT.md' : `write part ${i}`));
    const lines = texts.map((text) => `- [ ] ${text}`);
    const paths = project(`# Plan\n${lines.join('\n')}\n`);
    const { memory, reads } = countedMemory(texts);
    const plan = runPlan(paths, memory);
    plan.refresh(NO_CHANGE);
    expect(plan.openItemsName('AGENT.md')).toBe(true);
    expect(plan.openItemsName('fix_plan.md')).toBe(false);
    let before = 0;
    for (let i = 0; i < 4; i++) {
      // The first change of the run writes the memory whole (every text read once): counted from the next.
      if (i === 1) before = reads();
      lines[i] = lines[i]!.replace('[ ]', '[x]');
      writePlan(paths, `# Plan\n${lines.join('\n')}\n`);
      plan.refresh({ newContent: true, changed: true });
      expect(plan.openItemsName('AGENT.md')).toBe(i < 1);
      expect(plan.openItemsName('fix_plan.md')).toBe(false);
    }
    // Each tick reads the text of the item done, for each file asked about: not 200 texts.
    expect(reads() - before).toBeLessThan(3 * 10);
  });
});

describe('RunPlan: the memory a restart reads', () => {
  it('holds each open item where the run last saw it: a restart matches it there, not to a ticked item of the same text', () => {
    const paths = project('# Plan\n- [ ] write a\n- [ ] write a\n');
    const plan = runPlan(paths);
    plan.refresh(NO_CHANGE);
    // Items added above move the two twins down; then the first is done, with new content.
    const added = Array.from({ length: 20 }, (_, i) => `- [ ] new ${i}`).join('\n');
    writePlan(paths, `# Plan\n${added}\n- [ ] write a\n- [ ] write a\n`);
    plan.refresh(NO_CHANGE);
    writePlan(paths, `# Plan\n${added}\n- [x] write a\n- [ ] write a\n`);
    plan.refresh({ newContent: true, changed: true });
    expect(plan.hiddenNote).toBeUndefined();
    const held = plan.openItems.map(({ text, position }) => ({ text, position }));
    const stored = loadPlanMemory(paths, createMemoryLogger()).open.map(({ text, position }) => ({ text, position }));
    const restarted = runPlan(paths, loadPlanMemory(paths, createMemoryLogger()));
    const view = restarted.refresh(NO_CHANGE);
    expect(restarted.hiddenNote).toBeUndefined();
    expect(view?.blocking).toEqual({ open: 21, done: 1 });
    expect(restarted.openItems).toHaveLength(21);
    expect(stored).toEqual(held);
  });
});
