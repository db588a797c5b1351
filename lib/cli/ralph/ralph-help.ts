// `ralph --help`, rendered from the flag table (ralph-flags.ts): a header, one section per task,
// each row with its key's default from the config schema, then files, exit codes, examples and
// the differences from the Bash tool in one place. The build writes it to dist/cli/ralph-help.txt
// (scripts/render-help.mjs) for the fast path.

import { CONFIG_SCHEMA, type ConfigKey } from '../../config/schema.js';
import { renderEntry } from '../flag-table.js';
import { RALPH_FLAG_SECTIONS, RALPH_FLAGS, type RalphFlag } from './ralph-flags.js';

/** A key's default as the help shows it: the schema's value (a switch: on or off). */
function defaultOf(key: ConfigKey): string {
  const value = CONFIG_SCHEMA[key].default;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * A row's help line: its description, then its key's default from the schema. A default that is
 * off or empty goes unsaid, as does a switch's "on" unless the switch can turn it off.
 */
export function describeFlag(flag: RalphFlag): string {
  if (flag.key === undefined || flag.defaultNote === false) return flag.describe;
  const value = CONFIG_SCHEMA[flag.key].default;
  if (value === false || value === '' || (Array.isArray(value) && value.length === 0)) return flag.describe;
  return `${flag.describe} (default: ${defaultOf(flag.key)}${flag.defaultNote ?? ''})`;
}

const HEADER = `Ralph Loop for Claude Code

Runs a coding agent on this project again and again, following .ralph/PROMPT.md
and the .ralph/fix_plan.md checklist, until the plan is done (or a guard stops
it).

Usage: ralph [OPTIONS]

IMPORTANT: This command must be run from a Ralph project directory (one with
.ralph/PROMPT.md; create it with ralph-enable, ralph-setup or ralph-import).`;

const FOOTER = `Files:
  .ralph/PROMPT.md     instructions for Claude
  .ralph/fix_plan.md   the task checklist
  .ralph/AGENT.md      how to build, test and run the project
  .ralph/status.json   the loop's state
  .ralph/logs/         ralph.log, claude_output_*.log, metrics.jsonl

Exit codes: 0 done, 1 could not run, 2 halted by a guard, 3 stopped at a limit,
129/130/131/143 interrupted (SIGHUP/SIGINT/SIGQUIT/SIGTERM).

Examples:
  ralph --demo
  ralph --doctor
  ralph --monitor
  ralph --calls 50 --max-loops 10 --live
  ralph --github-issue 42 --close-summary --create-pr --link-issue --auto-close
  ralph --status --json --jq .status`;

/**
 * What differs from the Bash tool, in one place: the flags it does not have (from the table's
 * `ours` rows) and the behaviours a script written for it may notice.
 */
export function renderCompatibilityNotes(): string {
  const words = RALPH_FLAGS.filter((flag) => flag.ours).map((flag) => `--${flag.name}`);
  const lines = ['Compatibility with the Bash tool:', '  Same commands, flags, .ralph/ files and .ralphrc keys. Flags it does not have:'];
  let line = '   ';
  for (const [i, word] of words.entries()) {
    const item = ` ${word}${i < words.length - 1 ? ',' : '.'}`;
    if (line.length + item.length > 80) {
      lines.push(line);
      line = '   ';
    }
    line += item;
  }
  lines.push(
    line,
    '  -v is --verbose, as in the Bash tool. .ralphrc is read as data, never run.',
    '  A halt exits 2 and a limit 3 (the Bash tool: 0; EXIT_CODES=bash restores it).',
    '  status.json keeps its fields: loop_count counts the loop a guard stopped',
    '  before it ran; loops_run counts the loops that ran. All the differences:',
    '  docs/differences.md.',
  );
  return lines.join('\n');
}

/** `ralph --help`: the header, one section per flag group, then files, exit codes, examples. */
export function renderRalphHelp(): string {
  const label = (flag: RalphFlag) => `${flag.alias ? `-${flag.alias}, ` : '    '}--${flag.name}${flag.arg ? ` ${flag.arg}` : ''}`;
  const column = Math.max(...RALPH_FLAGS.map((flag) => label(flag).length)) + 4;
  const sections: string[] = [];
  for (const section of RALPH_FLAG_SECTIONS) {
    const lines = [`${section}:`];
    for (const flag of RALPH_FLAGS.filter((f) => f.section === section)) lines.push(...renderEntry(`  ${label(flag)}`, describeFlag(flag), column));
    sections.push(lines.join('\n'));
  }
  return [HEADER, ...sections, FOOTER, renderCompatibilityNotes()].join('\n\n');
}
