// One budget for every unit of `ralph --parallel N`: each call's cap (`--max-budget-usd`) is
// reserved against what is left of --max-cost once every unit's spend and the other calls'
// caps are taken off, so three units whose agents stop at their caps do not spend three times
// --max-cost together.

import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { doesItem, LONG, parallelProject, type ParallelProject } from './parallel-helpers.js';

let p: ParallelProject | undefined;
afterEach(() => p?.cleanup());

/** A call of ten API rounds costing $0.09 each ($0.90 in all), stopping at its cap as Claude Code does. */
function costlyItem(item: string, file: string) {
  const reads = Array.from({ length: 10 }, () => ({ tool: 'Read', input: { file_path: '.ralph/PROMPT.md' } }));
  return doesItem(item, { [file]: `${file}\n` }, { steps: reads, costUsd: 0.9 });
}

describe('ralph --parallel --max-cost', () => {
  it(
    'three units together spend no more than --max-cost (plus the one round an agent finishes past its cap)',
    async () => {
      p = parallelProject(['Add alpha', 'Add beta', 'Add gamma'], {
        calls: [costlyItem('Add alpha', 'a.txt'), costlyItem('Add beta', 'b.txt'), costlyItem('Add gamma', 'c.txt')],
      });
      const run = await runCli('ralph', ['--parallel', '3', '--max-cost', '1'], { cwd: p.project.dir, env: p.env });
      const caps = p.claude.runs().map((c) => Number(c.argv[c.argv.indexOf('--max-budget-usd') + 1]));
      const spent = p.state().units.reduce((sum, u) => sum + (u.cost_usd as number), 0);
      expect(
        caps.every((cap) => cap > 0),
        JSON.stringify(caps),
      ).toBe(true);
      expect(spent, `${run.stdout}\ncaps ${JSON.stringify(caps)}`).toBeLessThanOrEqual(1 + 3 * 0.09 + 1e-9);
      expect(spent).toBeGreaterThan(0.5);
    },
    LONG,
  );
});
