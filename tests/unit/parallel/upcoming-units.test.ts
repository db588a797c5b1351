// What `ralph --monitor` reads before it starts a parallel run, to open a window per unit:
// PARALLEL from the flag or .ralphrc, and the units — an unfinished run's (a resume keeps them
// and their order), else the plan's open items; 0 when it cannot tell.

import { afterEach, describe, expect, it } from 'vitest';
import { countUpcomingUnits, readParallel } from '../../../lib/parallel/upcoming-units.js';
import { stateProject, type StateProject } from '../monitor/fixture-state.js';

let project: StateProject | undefined;
// Every project a test made (one test makes two), removed after it.
const made: StateProject[] = [];
afterEach(() => {
  for (const p of made.splice(0)) p.cleanup();
});

const unit = (slug: string, state: string) => ({
  slug,
  item: slug,
  lines: [],
  after: [],
  branch: `ralph/p1/${slug}`,
  worktree: `.ralph/worktrees/${slug}`,
  state,
});

function setup(plan?: string) {
  project = stateProject();
  made.push(project);
  if (plan !== undefined) project.write('.ralph/fix_plan.md', plan);
  return { projectDir: project.dir, homeDir: project.dir, env: {}, flags: {} };
}

function writeRun(units: Array<ReturnType<typeof unit>>, finished: boolean): void {
  project!.write(
    '.ralph/parallel.json',
    JSON.stringify({ run_id: 'p1', base_commit: 'a'.repeat(40), run_branch: 'main', started_at: '2026-12-02T04:00:00Z', finished, units }),
  );
}

describe('the parallel run ralph is about to start', () => {
  it('reads PARALLEL from the flag, else .ralphrc', () => {
    const input = setup();
    expect(readParallel(input)).toBe(1);
    project!.write('.ralphrc', 'PARALLEL=3\n');
    expect(readParallel(input)).toBe(3);
    expect(readParallel({ ...input, flags: { PARALLEL: 2 } })).toBe(2);
  });

  it("counts the plan's open top-level items, or an unfinished run's units", () => {
    const input = setup('# Fix Plan\n\n- [x] done one\n- [ ] Add alpha\n  - [ ] a sub-item\n- [ ] Add beta\n');
    expect(countUpcomingUnits(input)).toBe(2);
    writeRun([unit('add-alpha', 'merged'), unit('add-beta', 'running'), unit('add-gamma', 'pending')], false);
    expect(countUpcomingUnits(input)).toBe(3);
    writeRun([unit('add-alpha', 'merged')], true);
    expect(countUpcomingUnits(input)).toBe(2);
  });

  it('is 0 when there is no plan or its dependencies are broken (ralph says why in its pane)', () => {
    expect(countUpcomingUnits(setup())).toBe(0);
    expect(countUpcomingUnits(setup('- [ ] Add alpha (after: Add beta)\n- [ ] Add beta (after: Add alpha)\n'))).toBe(0);
  });
});
