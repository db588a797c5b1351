// What `ralph --parallel` prints: the units and their order for --dry-run, and at the end each
// unit's outcome, with the commands to look at the work of a unit that was not merged.

import { orderUnits, stripItemMark } from './plan-units.js';
import type { ParallelRunState } from './run-state.js';

interface ShownUnit {
  slug: string;
  item: string;
  lines: string[];
  after: string[];
}

export function describeDryRunUnits(units: ShownUnit[], parallel: number): string {
  if (units.length === 0) return 'Parallel run: fix_plan.md has no open item; nothing would run\n';
  const lines = [`Parallel run (dry run): ${units.length} unit(s), ${parallel} at a time`];
  units.forEach((unit, index) => {
    const after = unit.after.length > 0 ? ` (after ${unit.after.join(', ')})` : '';
    lines.push(`  ${index + 1}. ${unit.slug}: ${stripItemMark(unit.lines[0] ?? unit.item).trim()}${after}`);
  });
  lines.push(`Order: ${orderUnits(units).map((wave) => wave.join(', ')).join(' → ')}`);
  return `${lines.join('\n')}\n`;
}

export function describeUnitOutcomes(run: ParallelRunState, projectDir: string): string {
  void projectDir;
  const lines = [`Parallel run ${run.run_id} into ${run.run_branch}:`];
  for (const unit of run.units) {
    const reason = unit.exit_reason ? ` (${unit.exit_reason})` : '';
    lines.push(`  ${unit.slug}: ${unit.state}${reason}`);
    if (unit.state !== 'merged' && unit.state !== 'pending') {
      lines.push(`    branch ${unit.branch}, worktree ${unit.worktree}`);
      lines.push(`    look: git log --oneline ${run.run_branch}..${unit.branch}   cd ${unit.worktree}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
