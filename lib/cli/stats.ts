// `ralph-stats`: what the loops did, from .ralph/logs/metrics.jsonl. By default the Bash tool's
// JSON (total_loops, successful, avg_duration, total_calls) so existing scripts keep working;
// `--format table` for people; `--full` for the whole summary as JSON; `--jq` to filter JSON.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import yargs from 'yargs';
import { RalphError } from '../errors.js';
import { runMain } from './error-funnel.js';
import { printJson } from './print-json.js';
import { formatVersionLine } from './package-info.js';

/** The Bash tool's message, printed as JSON on stderr (scripts parse it). */
const NO_METRICS_ERROR = 'No metrics file found. Run ralph first to generate metrics.';

export interface StatsCliOptions {
  format: 'json' | 'table';
  full: boolean;
  since?: string;
  jq?: string;
}

// Written out, in the layout of `ralph --help` (flag, argument, description in one column):
// yargs' right-aligned type tags wander with the text's length.
const STATS_HELP = `Usage: ralph-stats [--format json|table] [--since WHEN] [--full] [--jq FILTER]

Summarises .ralph/logs/metrics.jsonl (or $RALPH_DIR/logs/metrics.jsonl).

Options:
      --format json|table  json (default): the Bash tool's four fields;
                           table: a report for people
      --since WHEN         Only loops from this time: ISO date/time, or a span
                           back from now (30m, 2h, 7d)
      --full               JSON: the whole summary (runs, percentiles, tokens,
                           cost, outcomes, chart)
      --jq FILTER          Filter the JSON with a jq expression (built in; no
                           jq needed)
  -h, --help               Show this help
      --version            Show the version

Exit codes: 0 summary printed; 1 no metrics file, bad flag or bad --jq filter.
`;

function buildStatsParser(argv: string[]) {
  return yargs(argv)
    .scriptName('ralph-stats')
    .usage('Usage: ralph-stats [--format json|table] [--since WHEN] [--full] [--jq FILTER]\n\n' +
      'Summarises .ralph/logs/metrics.jsonl (or $RALPH_DIR/logs/metrics.jsonl).')
    .help(false)
    .version(false)
    .strict()
    .parserConfiguration({ 'camel-case-expansion': false, 'duplicate-arguments-array': false })
    .option('format', { type: 'string', choices: ['json', 'table'], default: 'json', describe: "json: the Bash tool's four fields; table: a report for people" })
    .option('since', { type: 'string', describe: 'Only loops from this time: ISO date/time, or a span back from now (30m, 2h, 7d)' })
    .option('full', { type: 'boolean', describe: 'JSON: the whole summary (runs, percentiles, tokens, cost, outcomes, chart)' })
    .option('jq', { type: 'string', describe: 'Filter the JSON with a jq expression (built in; no jq needed)' })
    .option('help', { alias: 'h', type: 'boolean', describe: 'Show this help' })
    .option('version', { type: 'boolean', describe: 'Show the version' })
    .option('debug', { type: 'boolean', hidden: true })
    .epilogue('Exit codes: 0 summary printed; 1 no metrics file, bad flag or bad --jq filter.')
    .fail((message, error) => {
      throw error ?? new RalphError('bad_flag', rewriteYargsMessage(message), { hint: 'run ralph-stats --help' });
    });
}

export function parseStatsArgs(argv: string[]): StatsCliOptions | 'help' | 'version' {
  const parsed = buildStatsParser(argv).parseSync() as Record<string, unknown>;
  if (parsed.help) return 'help';
  if (parsed.version) return 'version';
  const format = parsed.format === 'table' ? 'table' : 'json';
  const jq = parsed.jq === undefined ? undefined : String(parsed.jq);
  if (jq !== undefined && format === 'table') {
    throw new RalphError('bad_flag', '--jq filters JSON output; it cannot be used with --format table', { hint: 'drop --format table, or drop --jq' });
  }
  return { format, full: Boolean(parsed.full), since: parsed.since === undefined ? undefined : String(parsed.since), jq };
}

export async function mainStats(argv: string[]): Promise<number> {
  const options = parseStatsArgs(argv);
  if (options === 'help') {
    process.stdout.write(STATS_HELP);
    return 0;
  }
  if (options === 'version') {
    process.stdout.write(`${formatVersionLine('ralph-stats')}\n`);
    return 0;
  }
  const { parseSince } = await import('../stats/since.js');
  let sinceMs: number | undefined;
  if (options.since !== undefined) {
    const since = parseSince(options.since, Date.now());
    if (!since.ok) throw new RalphError('bad_flag', since.message, { hint: 'run ralph-stats --help' });
    sinceMs = since.ms;
  }
  // `${RALPH_DIR:-.ralph}/logs/metrics.jsonl`, as `ralph-stats.sh` finds it.
  const source = `${process.env.RALPH_DIR || '.ralph'}/logs/metrics.jsonl`;
  const metricsPath = resolve(process.cwd(), source);
  if (!existsSync(metricsPath)) {
    process.stderr.write(`${JSON.stringify({ error: NO_METRICS_ERROR })}\n`);
    return 1;
  }
  const { readMetrics } = await import('../stats/read-metrics.js');
  const metrics = readMetrics(metricsPath, { sinceMs });
  if (options.format === 'table') {
    const { renderStatsTable } = await import('../stats/render-stats-table.js');
    // Outcomes and reasons come from metrics lines the agent could write.
    const { stripTerminalControls } = await import('../text/terminal-text.js');
    process.stdout.write(stripTerminalControls(renderStatsTable(metrics.summary(), { source })));
    return 0;
  }
  if (metrics.skippedLines > 0) process.stderr.write(`Warning: skipped ${metrics.skippedLines} unreadable line(s) in the metrics file\n`);
  // The Bash tool's four numbers need no sorting of durations or chart rows.
  await printJson(options.full ? metrics.summary() : metrics.bashStats(), options.jq, (text) => process.stdout.write(text));
  return 0;
}

function rewriteYargsMessage(message: string): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (!unknown) return message;
  const names = unknown[1]!.split(', ').map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
  return `Unknown option: ${names.join(', ')}`;
}

await runMain(mainStats);
