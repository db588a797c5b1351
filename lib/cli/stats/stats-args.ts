// ralph-stats' flag table: its parsing, checks and --help all come from these rows
// (flag-table.ts). Apart from the command so tests can import it.

import { RalphError } from '../../errors.js';
import { DEBUG_ROW, HELP_ROW, parseFlags, renderHelp, VERSION_ROW, type FlagRow, type FlagTable } from '../flag-table.js';

export interface StatsCliOptions {
  format: 'json' | 'table';
  full: boolean;
  since?: string;
  jq?: string;
}

export const STATS_FLAGS: readonly FlagRow[] = [
  { name: 'format', arg: 'json|table', choices: ['json', 'table'], default: 'json', describe: "json: the Bash tool's four fields; table: a report for people" },
  { name: 'since', arg: 'WHEN', describe: 'Only loops from this time: ISO date/time, or a span back from now (30m, 2h, 7d)' },
  { name: 'full', describe: 'JSON: the whole summary (runs, percentiles, tokens, cost, outcomes, chart)' },
  { name: 'jq', arg: 'FILTER', describe: 'Filter the JSON with a jq expression (built in; no jq needed)' },
  HELP_ROW,
  VERSION_ROW,
  DEBUG_ROW,
];

const STATS_TABLE: FlagTable = {
  command: 'ralph-stats',
  rows: STATS_FLAGS,
  fail: (problem) => new RalphError('bad_flag', problem.message, { details: problem.details, hint: problem.hint ?? 'run ralph-stats --help' }),
};

export function parseStatsArgs(argv: readonly string[]): StatsCliOptions | 'help' | 'version' {
  const { values, positional } = parseFlags(argv, STATS_TABLE);
  if (values.help) return 'help';
  if (values.version) return 'version';
  if (positional.length > 0) throw STATS_TABLE.fail({ message: `Unexpected argument: ${positional[0]}` });
  const format = values.format === 'table' ? 'table' : 'json';
  const jq = values.jq as string | undefined;
  if (jq !== undefined && format === 'table') {
    throw new RalphError('bad_flag', '--jq filters JSON output; it cannot be used with --format table', { hint: 'drop --format table, or drop --jq' });
  }
  return { format, full: Boolean(values.full), since: values.since as string | undefined, jq };
}

export function renderStatsHelp(): string {
  return renderHelp({
    header:
      'Usage: ralph-stats [--format json|table] [--since WHEN] [--full] [--jq FILTER]\n\nSummarises .ralph/logs/metrics.jsonl (or $RALPH_DIR/logs/metrics.jsonl).',
    rows: STATS_FLAGS,
    footer: 'Exit codes: 0 summary printed; 1 no metrics file, bad flag or bad --jq filter.',
  });
}
