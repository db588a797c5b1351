import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadViewConfig } from '../../../lib/config/view-config.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function project(ralphrc: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-view-')));
  dirs.push(dir);
  writeFileSync(join(dir, '.ralphrc'), ralphrc);
  return dir;
}

describe('loadViewConfig: a view reads the plan with the loop settings', () => {
  it('takes FIX_PLAN_FILE and OPTIONAL_SECTIONS from .ralphrc, env over .ralphrc', () => {
    const dir = project('FIX_PLAN_FILE=docs/plan.md\nOPTIONAL_SECTIONS="Later,Someday"\nUSAGE_LIMIT_MARGIN_SECONDS=90\n');
    const view = loadViewConfig({ projectDir: dir, homeDir: dir, env: {} });
    expect(view).toEqual({
      paths: expect.objectContaining({ fixPlan: join(dir, 'docs/plan.md') }),
      optionalSections: ['Later', 'Someday'],
      usageWait: { marginMs: 90_000, fallbackMs: 60 * 60_000 },
      warnings: [],
    });
    expect(loadViewConfig({ projectDir: dir, homeDir: dir, env: { OPTIONAL_SECTIONS: 'Backlog' } }).optionalSections).toEqual(['Backlog']);
  });

  it('still shows the project when .ralphrc is broken: defaults, with a warning', () => {
    const dir = project('MAX_CALLS_PER_HOUR=ten\n');
    const view = loadViewConfig({ projectDir: dir, homeDir: dir, env: {} });
    expect(view.paths.fixPlan).toBe(join(dir, '.ralph/fix_plan.md'));
    expect(view.optionalSections).toEqual(['Optional', 'Future', 'Future Enhancements', 'Nice to Have']);
    expect(view.warnings).toEqual([expect.stringContaining('problem in configuration; showing the plan with default settings')]);
  });

  it('keeps OPTIONAL_SECTIONS but warns when FIX_PLAN_FILE leaves the project', () => {
    const dir = project('FIX_PLAN_FILE=../plan.md\nOPTIONAL_SECTIONS=Later\n');
    const view = loadViewConfig({ projectDir: dir, homeDir: dir, env: {} });
    expect(view.optionalSections).toEqual(['Later']);
    expect(view.warnings).toEqual([expect.stringContaining('FIX_PLAN_FILE=../plan.md points outside the project')]);
  });
});
