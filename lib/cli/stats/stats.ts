// `ralph-stats`: what the loops did, from .ralph/logs/metrics.jsonl. By default the Bash tool's
// JSON (total_loops, successful, avg_duration, total_calls) so existing scripts keep working;
// `--format table` for people; `--full` for the whole summary as JSON; `--jq` to filter JSON.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RalphError } from '../../errors.js';
import { runMain } from '../error-funnel.js';
import { printJson } from '../print-json.js';
import { printHelpOrVersion } from '../help-or-version.js';
import { parseStatsArgs, renderStatsHelp } from './stats-args.js';

/** The Bash tool's message, printed as JSON on stderr (scripts parse it). */
const NO_METRICS_ERROR = 'No metrics file found. Run ralph first to generate metrics.';

export async function mainStats(argv: string[]): Promise<number> {
  const options = parseStatsArgs(argv);
  if (options === 'help' || options === 'version') return printHelpOrVersion(options, 'ralph-stats', renderStatsHelp);
  const { parseSince } = await import('../../stats/since.js');
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
  const { readMetrics } = await import('../../stats/read-metrics.js');
  const metrics = readMetrics(metricsPath, { sinceMs });
  if (options.format === 'table') {
    const { renderStatsTable } = await import('../../stats/render-stats-table.js');
    // Outcomes and reasons come from metrics lines the agent could write.
    const { stripTerminalControls } = await import('../../text/terminal-text.js');
    process.stdout.write(stripTerminalControls(renderStatsTable(metrics.summary(), { source })));
    return 0;
  }
  if (metrics.skippedLines > 0) process.stderr.write(`Warning: skipped ${metrics.skippedLines} unreadable line(s) in the metrics file\n`);
  // The Bash tool's four numbers need no sorting of durations or chart rows.
  await printJson(options.full ? metrics.summary() : metrics.bashStats(), options.jq, (text) => process.stdout.write(text));
  return 0;
}

await runMain(mainStats);
