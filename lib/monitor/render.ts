// renderFrame: the whole dashboard as an array of lines, a pure function of the snapshot and
// the terminal size. No line is wider than `columns`; with `rows` set the frame never has more
// lines than that: the log tails shrink first, then the least important sections go.

import { composeLine, sanitizeText } from './ansi.js';
import type { DashboardSnapshot } from './snapshot.js';
import {
  headingLine,
  liveTailLines,
  ralphLogLines,
  renderAgentSection,
  renderAnalysisSection,
  renderAlertsSection,
  renderBreakerSection,
  renderLimitsSection,
  renderLoopSection,
  renderPlanSection,
  renderQueueSection,
  renderUnitsSection,
  renderIssueSection,
  renderUsageWaitSection,
  type Line,
  type SectionContext,
} from './render-sections.js';
import { formatClock } from './time-format.js';

export interface RenderOptions {
  columns: number;
  /** Terminal height; omit for an unbounded frame (`--once` into a pipe). */
  rows?: number;
  color: boolean;
  now: number;
  /** Shown in the footer. */
  intervalSeconds?: number;
  /** One frame for a script (`--once`): the footer gives the time only, no keys or refresh. */
  once?: boolean;
  /** The dashboard pane of `ralph --monitor`: Ctrl+C is ignored here, the loop pane stops the run. */
  inLayout?: boolean;
}

interface Block {
  /** Lower is more important; blocks are dropped from the highest number up. */
  priority: number;
  lines: Line[];
  /** The section's heading line, shown while there is room for it. */
  heading?: Line;
  /** Put before the first line when the heading is left out (`Breaker: OPEN …`). */
  label?: string;
  /** Flexible blocks (log tails) get whatever rows remain, up to `max` lines, plus a heading
   * shown only when at least one line fits. */
  flexible?: { max: number; heading?: Line };
}

const MIN_COLUMNS = 20;
/** The Bash dashboard's "Recent Activity" shows the last 8 lines of ralph.log. */
const RALPH_LOG_LINES = 8;
const LIVE_TAIL_LINES = 3;

export function renderFrame(snapshot: DashboardSnapshot, options: RenderOptions): string[] {
  const columns = Math.max(MIN_COLUMNS, Math.floor(options.columns));
  const ctx: SectionContext = { now: options.now, columns };
  const section = (title: string, priority: number, body: Line[], label?: string): Block[] =>
    body.length === 0 ? [] : [{ priority, heading: headingLine(title, columns), label, lines: body }];

  const project = sanitizeText(snapshot.projectDir.split(/[\\/]/).filter(Boolean).at(-1) ?? '');
  const header: Block = {
    priority: 0,
    lines: [
      [
        { text: 'RALPH MONITOR', style: 'title' },
        { text: project ? `  ${project}` : '', style: 'dim' },
      ],
    ],
  };
  const warnings: Block = {
    priority: 1,
    lines: snapshot.warnings.map((w) => [{ text: `! ${sanitizeText(w)}`, style: 'yellow' }]),
  };
  const analysisTitle = snapshot.analysis?.loopNumber !== undefined ? `Last loop #${snapshot.analysis.loopNumber}` : 'Last loop';
  const liveTail = liveTailLines(snapshot, LIVE_TAIL_LINES);
  // Priority follows what a glance needs (status, breaker, plan, last loop, activity); the
  // hourly meters and the live tail have their own panes or change slowly.
  const blocks: Block[] = [
    header,
    warnings,
    ...section('Loop', 2, renderLoopSection(snapshot, ctx)),
    ...section('Usage limit', 2, renderUsageWaitSection(snapshot, ctx)),
    ...section('Agent', 3, renderAgentSection(snapshot, ctx)),
    ...(snapshot.progress?.status === 'executing' && liveTail.length > 0 ? [{ priority: 9, lines: liveTail, flexible: { max: LIVE_TAIL_LINES } }] : []),
    ...section('Circuit breaker', 4, renderBreakerSection(snapshot), 'Breaker'),
    ...section('Guards', 4, renderAlertsSection(snapshot), 'Guards'),
    ...section('Plan', 5, renderPlanSection(snapshot, ctx), 'Plan'),
    ...section(analysisTitle, 6, renderAnalysisSection(snapshot), analysisTitle),
    ...section('Limits', 7, renderLimitsSection(snapshot, ctx)),
    ...section('Queue', 8, renderQueueSection(snapshot), 'Queue'),
    ...section('Units', 8, renderUnitsSection(snapshot), 'Units'),
    ...section('GitHub issue', 8, renderIssueSection(snapshot), 'Issue'),
    {
      priority: 10,
      lines: ralphLogLines(snapshot, RALPH_LOG_LINES),
      flexible: { max: RALPH_LOG_LINES, heading: headingLine('Recent activity', columns) },
    },
  ];
  const footer: Line = [
    {
      text: options.once
        ? `as of ${formatClock(options.now)}`
        : `${options.inLayout ? 'Ctrl+C in the loop pane stops the run' : 'Ctrl+C to exit'} · refresh ${options.intervalSeconds ?? 2}s · ${formatClock(options.now)}`,
      style: 'dim',
    },
  ];

  const lines = layoutBlocks(blocks, options.rows === undefined ? undefined : options.rows - 1);
  return [...lines, footer].map((line) => composeLine(line, columns, options.color));
}

/** Rows a terminal needs to show the last `RECENT_MIN` lines of activity with its heading. */
const RECENT_MIN = 3;

// Fitting to the height, most readable first: full sections with headings; then headings
// folded into a label on the first line; then each section's first line only; then whole
// sections dropped, least important first. Activity keeps a few rows before headings go.
function layoutBlocks(blocks: Block[], available: number | undefined): Line[] {
  const flexLines = (b: Block, n: number): Line[] => (!b.flexible || n <= 0 ? [] : [...(b.flexible.heading ? [b.flexible.heading] : []), ...b.lines.slice(-n)]);
  const fullLines = (b: Block): Line[] => [...(b.heading ? [b.heading] : []), ...b.lines];
  if (available === undefined) return blocks.flatMap((b) => (b.flexible ? flexLines(b, b.flexible.max) : fullLines(b)));
  const folded = (b: Block, firstOnly: boolean): Line[] => {
    const body = firstOnly ? b.lines.slice(0, 1) : b.lines;
    if (!b.label || body.length === 0) return body;
    return [[{ text: `${b.label}: `, style: 'bold' }, ...body[0]!], ...body.slice(1)];
  };
  const levels: Array<(b: Block) => Line[]> = [fullLines, (b) => folded(b, false), (b) => folded(b, true)];
  const wantsRecent = blocks.some((b) => b.flexible?.heading && b.lines.length > 0);
  let kept = [...blocks];
  let shape = levels[0]!;
  const fixedRows = () => kept.reduce((sum, b) => sum + (b.flexible ? 0 : shape(b).length), 0);
  for (const [i, level] of levels.entries()) {
    shape = level;
    const reserve = wantsRecent && i < levels.length - 1 ? RECENT_MIN + 1 : 0;
    if (fixedRows() + reserve <= available) break;
  }
  while (fixedRows() > available && kept.length > 1) {
    const worst = kept.reduce((w, b, i) => (b.priority >= (kept[w]?.priority ?? -1) ? i : w), 0);
    kept = kept.filter((_, i) => i !== worst);
  }
  // Hand out the remaining rows one line at a time so every tail gets a share.
  const shares = new Map<Block, number>();
  let spare = available - fixedRows();
  let progressed = true;
  while (spare > 0 && progressed) {
    progressed = false;
    for (const b of kept) {
      if (!b.flexible || spare <= 0) continue;
      const have = shares.get(b) ?? 0;
      const cost = have === 0 && b.flexible.heading ? 2 : 1;
      if (have < Math.min(b.flexible.max, b.lines.length) && cost <= spare) {
        shares.set(b, have + 1);
        spare -= cost;
        progressed = true;
      }
    }
  }
  const out = kept.flatMap((b) => (b.flexible ? flexLines(b, shares.get(b) ?? 0) : shape(b)));
  return out.slice(0, Math.max(0, available));
}
