// `ralph --status`: prints .ralph/status.json (ours or the Bash tool's) as the Bash tool does,
// or with --json the whole machine-readable state in one object (status-json.ts, filtered by
// --jq if given). Read-only: nothing here repairs, sets aside or rewrites a state file.

import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ViewConfig } from '../../config/view-config.js';
import { readRegularFile } from '../../state/control-file.js';
import { stripTerminalControls } from '../../text/terminal-text.js';
import { ledgerPath, planMemoryPath } from '../../state/ledger-path.js';
import { ralphPaths } from '../../state/paths.js';
import { isProcessAlive } from '../../state/process-alive.js';
import { RalphError } from '../../errors.js';
import { notAProjectHint } from '../../project/nested-project.js';

export interface ShowStatusOptions {
  projectDir: string;
  json: boolean;
  /** jq filter applied to the JSON (implies json). */
  jq?: string;
  write: (text: string) => void;
  /** The project's effective settings (default: read from env, .ralphrc and ~/.ralphrc). */
  view?: ViewConfig;
}

export const NO_STATUS_MESSAGE = 'No status file found. Ralph may not be running.';

export async function showStatus(options: ShowStatusOptions): Promise<number> {
  const paths = ralphPaths(options.projectDir);
  // As every other command says it: here is no project to show (a project without a status
  // file yet keeps the Bash tool's answer below).
  if (!existsSync(paths.ralphDir)) {
    throw new RalphError('not_a_project', 'This directory is not a Ralph project (no .ralph/ folder)', {
      hint: notAProjectHint(options.projectDir, 'cd into a Ralph project, or run ralph-enable here'),
    });
  }
  if (options.json || options.jq !== undefined) {
    const { printJson, collectStatus, loadViewConfig } = await import('./status-details.js');
    const view = options.view ?? loadViewConfig({ projectDir: options.projectDir, homeDir: homedir(), env: process.env });
    await printJson(collectStatus(options.projectDir, view), options.jq, options.write);
    return 0;
  }
  // A parallel run writes no status.json in the project: its own lines say how it stands.
  const parallel = existsSync(join(paths.ralphDir, 'parallel.json'));
  if (!existsSync(paths.status)) {
    if (!parallel) options.write(`${NO_STATUS_MESSAGE}\n`);
  } else {
    // The agent can write status.json: a FIFO there is an error naming it, not a hang.
    const raw = readRegularFile(paths.status) ?? '';
    options.write('Current Status:\n');
    const parsed = tryParse(raw);
    const { shown, summary } = splitSummary(parsed);
    // Like the Bash tool: pretty JSON when it parses, the raw text otherwise; the closing summary
    // of the last run, in words, after it.
    // The agent can write status.json: no escape sequence or bidi control of its reaches the terminal.
    options.write(stripTerminalControls(parsed === undefined ? raw : `${JSON.stringify(shown, null, 2)}\n`));
    if (summary.length > 0) options.write(stripTerminalControls(`\nLast run:\n${summary.join('\n')}\n`));
    const stale = staleRunningPid(parsed);
    if (stale !== undefined) {
      options.write(`Note: the ralph process that wrote this (pid ${stale}) is no longer running; run ralph to resume.\n`);
    }
  }
  if (parallel) await showParallel(paths, options.write);
  const ledger = options.view?.paths.ledger ?? ledgerPath(options.projectDir, process.env, homedir());
  await showLedger(options, ledger);
  await showHeldPlanItems(options, ledger);
  return 0;
}

/** The parallel run (.ralph/parallel.json) and each unit's state, loops and cost; loaded only when there is one. */
async function showParallel(paths: ReturnType<typeof ralphPaths>, write: (text: string) => void): Promise<void> {
  const { formatParallelStatus, readParallelStatus, silentLogger, systemClock } = await import('./status-details.js');
  const view = readParallelStatus(paths, { logger: silentLogger, clock: systemClock });
  // Unit slugs and exit reasons come from a file the agent can write.
  if (view) write(stripTerminalControls(formatParallelStatus(view)));
}

/**
 * The plan items ralph counts as open although fix_plan.md shows them otherwise, numbered for
 * `ralph --accept-item`. Loaded only when the project has a plan memory beside its ledger.
 */
async function showHeldPlanItems(options: ShowStatusOptions, ledger: string): Promise<void> {
  if (!existsSync(planMemoryPath(ledger))) return;
  const { formatHeldItems, heldPlanItems, loadViewConfig } = await import('./status-details.js');
  const view = options.view ?? loadViewConfig({ projectDir: options.projectDir, homeDir: homedir(), env: process.env });
  const held = heldPlanItems(view);
  if (held.length > 0) options.write(stripTerminalControls(formatHeldItems(held, view.paths.fixPlan)));
}

/**
 * The run's figures as ralph's ledger outside the project holds them, and each view in `.ralph/`
 * that differs (the agent can write those). Loaded only when the project has a ledger, so a plain
 * status without one stays a cold start.
 */
async function showLedger(options: ShowStatusOptions, ledger: string): Promise<void> {
  if (!existsSync(ledger)) return;
  const { formatLedgerStatus, ledgerStatus, loadViewConfig } = await import('./status-details.js');
  const view = options.view ?? loadViewConfig({ projectDir: options.projectDir, homeDir: homedir(), env: process.env });
  const kept = ledgerStatus(view.paths);
  if (kept) options.write(stripTerminalControls(formatLedgerStatus(kept)));
}

/** A status that still says `running` although its writer is gone (killed with -9, a crash). */
function staleRunningPid(status: unknown): number | undefined {
  if (typeof status !== 'object' || status === null) return undefined;
  const { status: state, pid } = status as { status?: unknown; pid?: unknown };
  if (state !== 'running' || typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return isProcessAlive(pid) ? undefined : pid;
}

/** status.json without its `run_summary`, and that summary's lines (none when absent or malformed). */
function splitSummary(status: unknown): { shown: unknown; summary: string[] } {
  if (typeof status !== 'object' || status === null || !('run_summary' in status)) return { shown: status, summary: [] };
  const { run_summary: summary, ...shown } = status as { run_summary?: { lines?: unknown } };
  const lines = Array.isArray(summary?.lines) ? summary.lines.filter((line): line is string => typeof line === 'string') : [];
  return { shown, summary: lines };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
