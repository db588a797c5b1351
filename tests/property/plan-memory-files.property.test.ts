// Property test of the plan's memory as its files hold it: after each reading of a plan changed
// in any way (items added, removed, moved, ticked, twins of the same text, lines above them), the
// memory a new run would load (plan-memory.json with its log applied) holds the texts the run
// holds, in the same order; and when they changed (the files were written), at the positions the
// run holds too, as writing the memory whole would have put them (positions that alone moved are
// written with the next change). fast-check prints the seed of a
// failing case to replay it.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPlanMemory } from '../../lib/plan/plan-store.js';
import { newRunPlan } from '../../lib/plan/plan-view.js';
import { ralphPaths } from '../../lib/state/paths.js';
import { createMemoryLogger } from '../helpers/memory-logger.js';

const LINES = ['- [ ] write a', '- [x] write a', '- [ ] write b', '- [x] write b', '- [ ] write c', 'a note', '# Part', ''];
const plans = fc.array(fc.array(fc.constantFrom(...LINES), { maxLength: 10 }), { minLength: 2, maxLength: 6 });
const stored = (open: ReadonlyArray<{ text: string; position: number }>) => open.map(({ text, position }) => ({ text, position }));

describe('the plan memory files', () => {
  it('hold, after each reading, the texts the run holds, and their positions when the texts changed', () => {
    fc.assert(
      fc.property(plans, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), (texts, evidence) => {
        const root = mkdtempSync(join(tmpdir(), 'plan-files-'));
        try {
          mkdirSync(join(root, 'project', '.ralph'), { recursive: true });
          const paths = { ...ralphPaths(join(root, 'project')), ledger: join(root, 'state', 'ledger.json') };
          const logger = createMemoryLogger();
          const plan = newRunPlan({ paths, optionalSections: [], requiresPlanComplete: true, dryRun: false, logger }, undefined);
          let before: string[] = [];
          texts.forEach((lines, i) => {
            writeFileSync(paths.fixPlan, `${lines.join('\n')}\n`);
            plan.refresh({ newContent: evidence[i]!, changed: evidence[i]! });
            const held = stored(plan.openItems);
            const loaded = stored(loadPlanMemory(paths, logger).open);
            expect(loaded.map((item) => item.text)).toEqual(held.map((item) => item.text));
            if (held.map((item) => item.text).join('\n') !== before.join('\n')) expect(loaded).toEqual(held);
            before = held.map((item) => item.text);
          });
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 300 },
    );
  });
});
