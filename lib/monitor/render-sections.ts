// The dashboard's sections, each a pure function from the snapshot to styled lines. Lines are
// written most-important-first so that cutting them at a narrow width (60 columns) loses the
// least useful part. Layout and fitting to the terminal live in render.ts.

import { visibleWidth, sanitizeText, type Segment, type Style } from './ansi.js';
import type { DashboardSnapshot, RunView } from './snapshot.js';
import { formatClock, formatElapsed, hourKeyOf, secondsUntilNextHour } from './time-format.js';

export type Line = Segment[];

export interface SectionContext {
  now: number;
  columns: number;
}

/** The loop's own spinner glyphs; the dashboard turns them by the clock, one per second. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸'];
const STATUS_BLOCK = '---RALPH_STATUS---';
/** progress.json while and after the verification gate runs (ours). */
const GATE_TEXT: Record<string, string> = {
  verifying: 'finished; verification gate running',
  gate_passed: 'finished; verification gate passed',
  gate_failed: 'finished; verification gate failed',
  gate_not_verified: 'finished; verification gate NOT VERIFIED (ran no test)',
};

export function renderLoopSection(snap: DashboardSnapshot, ctx: SectionContext): Line[] {
  const s = snap.status;
  if (!s && snap.units) {
    // A parallel run writes no status.json of its own: each unit's loop writes its worktree's.
    return [[{ text: `Parallel run: ${snap.units.length} unit(s), each with its own loop (see Units)`, style: 'dim' }]];
  }
  if (!s) {
    const text = snap.ralphDirFound ? 'Status file not found. Ralph may not be running.' : 'No .ralph/ directory found.';
    return [[{ text, style: 'red' }]];
  }
  const loop = s.loopCount === undefined ? '#?' : `#${s.loopCount}${s.maxLoops ? `/${s.maxLoops}` : ''}`;
  const lines: Line[] = [
    [
      { text: 'Loop ' },
      { text: loop, style: 'bold' },
      ...(s.agent ? [{ text: '  Agent: ' }, { text: s.agent, style: 'bold' as const }] : []),
      { text: '  Status: ' },
      ...(snap.loopGone
        ? [
            { text: 'not running', style: 'red' as const },
            { text: `  (recorded: ${s.status})`, style: 'dim' as const },
          ]
        : [
            { text: s.status ?? 'unknown', style: statusStyle(s.status) },
            ...(s.lastAction && s.lastAction !== s.status ? [{ text: `  (${s.lastAction})`, style: 'dim' as const }] : []),
          ]),
      ...runTime(snap, ctx),
    ],
  ];
  if (s.exitReason) lines.push([{ text: 'Exit reason: ' }, { text: s.exitReason, style: statusStyle(s.status) }]);
  if (s.sandbox) {
    const sb = s.sandbox;
    const cost = sb.estimatedCost ? `  est. $${sb.estimatedCost}` : '';
    lines.push([{ text: `Sandbox: ${sb.provider} ${(sb.id ?? '').slice(0, 24)} ${sb.status ?? ''}${cost}`.replace(/ +/g, ' ') }]);
  }
  return lines;
}

/** `  · run 5m 04s`: to now while the loop runs, to its last status write once it has stopped. */
function runTime(snap: DashboardSnapshot, ctx: SectionContext): Line {
  const s = snap.status;
  if (s?.startedAt === undefined) return [];
  const running = !snap.loopGone && (s.status === 'running' || s.status === 'paused');
  const end = running ? ctx.now : (s.updatedAt ?? ctx.now);
  return [{ text: `  · run ${formatElapsed((end - s.startedAt) / 1000)}`, style: 'dim' }];
}

export function renderAgentSection(snap: DashboardSnapshot, ctx: SectionContext): Line[] {
  const p = snap.progress;
  if (!p) return [];
  if (p.status === 'executing' && snap.loopGone) {
    const last = p.lastTool ?? p.lastOutput;
    const tool = last ? ` (last: ${sanitizeText(last)})` : '';
    return [[{ text: 'Last agent run: ' }, { text: `cut short when the loop stopped${tool}`, style: 'red' }]];
  }
  if (p.status === 'executing') {
    const secs = p.workingSeconds === undefined ? undefined : p.workingSeconds + Math.max(0, Math.floor((ctx.now - snap.takenAt) / 1000));
    const line: Line = [
      { text: `${p.staleSeconds === undefined ? SPINNER[Math.floor(ctx.now / 1000) % SPINNER.length] : '•'} Working`, style: 'green' },
      { text: secs === undefined ? '' : ` for ${formatElapsed(secs)}` },
    ];
    if (p.lastTool) line.push({ text: '  last tool: ' }, { text: sanitizeText(p.lastTool), style: 'cyan' });
    const lines = [line];
    if (p.staleSeconds !== undefined) {
      lines.push([{ text: `No progress update for ${formatElapsed(p.staleSeconds)}; the loop may have stopped`, style: 'yellow' }]);
    }
    // The live.log tail (shown below this section) says more than the one-line excerpt.
    if (p.lastOutput && snap.liveTail.length === 0) lines.push([{ text: `> ${sanitizeText(p.lastOutput)}`, style: 'dim' }]);
    return lines;
  }
  const detail =
    p.status === 'timed_out_productive'
      ? `timed out (productive, ${p.filesChanged ?? 0} files changed)`
      : GATE_TEXT[p.status]
        ? `${GATE_TEXT[p.status]}${p.status === 'verifying' && p.lastOutput ? ` (${p.lastOutput})` : ''}`
        : p.error
          ? `${p.status}: ${p.error}`
          : p.status;
  return [[{ text: 'Last agent run: ' }, { text: sanitizeText(detail), style: statusStyle(p.status) }]];
}

/** The last `max` non-blank lines of live.log, newest last. */
export function liveTailLines(snap: DashboardSnapshot, max: number): Line[] {
  const lines: Line[] = [];
  for (let i = snap.liveTail.length - 1; i >= 0 && lines.length < max; i--) {
    const text = sanitizeText(snap.liveTail[i] ?? '').trimEnd();
    if (text.trim() !== '') lines.unshift([{ text: `  ${text}`, style: 'dim' }]);
  }
  return lines;
}

export function renderLimitsSection(snap: DashboardSnapshot, ctx: SectionContext): Line[] {
  const s = snap.status;
  const calls = snap.rate.calls ?? s?.callsThisHour ?? 0;
  const tokens = snap.rate.tokens ?? s?.tokensThisHour ?? 0;
  const lines: Line[] = [
    meterLine('Calls  ', calls, s?.maxCallsPerHour, 'this hour', ctx.columns),
    // The hourly budget counts input + output; the run's figure below adds cache reads and writes.
    meterLine(
      'Tokens ',
      tokens,
      s?.maxTokensPerHour || undefined,
      s?.maxTokensPerHour ? 'this hour (input+output)' : 'this hour (input+output, no limit)',
      ctx.columns,
    ),
  ];
  const stale = snap.rate.hourKey !== undefined && snap.rate.hourKey !== hourKeyOf(ctx.now);
  const wait = secondsUntilNextHour(ctx.now);
  lines.push(
    stale
      ? [{ text: 'Counters reset at the next loop (new hour)', style: 'dim' }]
      : [{ text: `Resets in ${formatElapsed(wait)} (at ${formatClock(ctx.now + wait * 1000).slice(0, 5)})`, style: 'dim' }],
  );
  if (s && (s.costUsdRun !== undefined || s.maxCostUsd !== undefined || s.tokensRun !== undefined)) {
    const spent = s.costUsdRun ?? 0;
    const unknown = s.unknownCostCalls ? ` + ${s.unknownCostCalls} call${s.unknownCostCalls === 1 ? '' : 's'} of unknown cost` : '';
    const label = s.maxCostUsd ? `$${spent.toFixed(2)}${unknown} of $${s.maxCostUsd.toFixed(2)}` : `$${spent.toFixed(2)}${unknown}`;
    const tail = `this run${s.tokensRun !== undefined ? `, ${formatCount(s.tokensRun)} tokens incl. cache` : ''}${s.maxCostUsd ? '' : ' (no --max-cost)'}`;
    lines.push(barLine('Cost   ', label, tail, s.maxCostUsd ? spent / s.maxCostUsd : undefined, ctx.columns));
  }
  return lines;
}

const STALE_WAIT_SECONDS = 600;

export function renderUsageWaitSection(snap: DashboardSnapshot, ctx: SectionContext): Line[] {
  const w = snap.usageWait;
  const left = w ? Math.ceil((w.resumeAt - ctx.now) / 1000) : 0;
  // A wait file left behind long after its reset time is history, not news.
  if (w && left > -STALE_WAIT_SECONDS) {
    const head: Line =
      left > 0
        ? [
            { text: 'Usage limit: ', style: 'yellow' },
            { text: `resumes in ${formatElapsed(left)}`, style: 'bold' },
            { text: ` (at ${formatClock(w.resumeAt)})` },
          ]
        : [{ text: 'Usage limit: wait is over, resuming', style: 'yellow' }];
    const why = [w.reason, w.source ? `source: ${w.source}` : undefined].filter(Boolean).join(' · ');
    return why ? [head, [{ text: sanitizeText(why), style: 'dim' }]] : [head];
  }
  if (snap.status?.status === 'paused' || snap.status?.lastAction === 'api_limit') {
    return [[{ text: 'Usage limit reached; waiting for the reset (no reset time recorded)', style: 'yellow' }]];
  }
  return [];
}

export function renderBreakerSection(snap: DashboardSnapshot): Line[] {
  const b = snap.breaker;
  if (!b) return [[{ text: 'No breaker state yet (CLOSED)', style: 'dim' }]];
  const counters = [
    `no progress ${b.consecutiveNoProgress ?? 0}`,
    `same error ${b.consecutiveSameError ?? 0}`,
    `denials ${b.consecutivePermissionDenials ?? 0}`,
    `opens ${b.totalOpens ?? 0}`,
  ].join(' · ');
  const lines: Line[] = [[{ text: b.state, style: breakerStyle(b.state) }, { text: ` ${counters}` }]];
  const last = b.lastProgressLoop ? `Last progress: loop #${b.lastProgressLoop}` : '';
  if (b.reason || last) {
    lines.push([{ text: [last, b.reason ? `Reason: ${sanitizeText(b.reason)}` : ''].filter(Boolean).join(' · '), style: 'dim' }]);
  }
  return lines;
}

export function renderPlanSection(snap: DashboardSnapshot, ctx: SectionContext): Line[] {
  // Open items the agent hid (deleted, fenced, quoted, moved under an optional heading) still
  // count: the file alone would show them done or gone, so the loop's note comes first.
  const note = snap.status?.planNote;
  const hidden: Line[] = note ? [[{ text: `⚠ ${sanitizeText(note).slice(0, 300)}`, style: 'yellow' }]] : [];
  const plan = snap.plan;
  const file = sanitizeText(snap.planFile ?? 'fix_plan.md');
  if (!plan) return [...hidden, [{ text: `${file} not found`, style: 'dim' }]];
  const optional = plan.optionalOpen > 0 ? ` · ${plan.optionalOpen} optional open` : '';
  if (plan.total === 0) {
    const what = plan.optionalOpen + plan.optionalDone > 0 ? `has only optional items${optional}` : 'has no checklist items';
    return [...hidden, [{ text: `${file} ${what}`, style: 'dim' }]];
  }
  const pct = Math.round((plan.done / plan.total) * 100);
  const lines = [...hidden, barLine('', `${plan.done}/${plan.total} done`, `(${pct}%)${optional}`, plan.done / plan.total, ctx.columns, true)];
  if (snap.run) lines.push(renderRunLine(snap.run));
  return lines;
}

/** The run record's gap to the goal and its trend: `Run active · 3 attempts · gap 2 (…) ↓ improving`. */
function renderRunLine(run: RunView): Line {
  const attempts = `${run.attempts} attempt${run.attempts === 1 ? '' : 's'}`;
  const facts = `${run.status} · ${attempts}${run.gapText ? ` · ${run.gapText}` : ''}`;
  // An earlier run's record (the current run has made no call yet): labelled, never as this run's.
  if (run.earlier) return [{ text: `Earlier run: ${facts}`, style: 'dim' }];
  return [{ text: `Run ${facts}` }];
}

export function renderAnalysisSection(snap: DashboardSnapshot): Line[] {
  const a = snap.analysis;
  if (!a) return [[{ text: 'No analysis yet', style: 'dim' }]];
  const facts: Line = [
    { text: 'Exit signal ' },
    { text: a.exitSignal ? 'yes' : 'no', style: a.exitSignal ? 'green' : undefined },
    { text: ` · files changed ${a.filesModified ?? 0}` },
  ];
  if (a.confidence !== undefined) facts.push({ text: ` · confidence ${a.confidence}` });
  if (a.permissionDenials) facts.push({ text: ` · denials ${a.permissionDenials}`, style: 'red' });
  if (a.askingQuestions) facts.push({ text: ' · asking questions', style: 'yellow' });
  const lines: Line[] = [facts];
  // The agent's prose, without the RALPH_STATUS block some agents put inside it.
  const summary = a.workSummary?.split(STATUS_BLOCK)[0]?.trim();
  if (summary) lines.push([{ text: `Summary: ${sanitizeText(summary)}` }]);
  return lines;
}

export function renderQueueSection(snap: DashboardSnapshot): Line[] {
  const q = snap.queue;
  if (!q) return [];
  const lines: Line[] = [[{ text: `${q.completed}/${q.total} done  (${q.pending} pending, ${q.processing} active, ${q.failed} failed)` }]];
  if (q.current) lines.push([{ text: `Current: ${sanitizeText(q.current)}` }]);
  return lines;
}

/** What the guards undid or refused in this run, one line each. */
export function renderAlertsSection(snap: DashboardSnapshot): Line[] {
  return (snap.status?.alerts ?? []).map((alert) => [{ text: `! ${sanitizeText(alert)}`, style: 'yellow' }] as Line);
}

/** `ralph --parallel`: one line per unit; its live output is in its worktree's .ralph/live.log. */
export function renderUnitsSection(snap: DashboardSnapshot): Line[] {
  const units = snap.units;
  if (!units) return [];
  const width = Math.max(...units.map((u) => u.slug.length));
  const styleOf = (state: string) =>
    state === 'merged' || state === 'in-review'
      ? 'green'
      : state === 'failed' || state === 'needs-review'
        ? 'red'
        : state === 'conflict'
          ? 'yellow'
          : undefined;
  return units.map(
    (u) =>
      [
        { text: `${sanitizeText(u.slug).padEnd(width)}  ` },
        { text: u.state.padEnd(12), ...(styleOf(u.state) ? { style: styleOf(u.state) } : {}) },
        // A pull request's URL first: it is what the line is for, and a narrow pane cuts the end.
        u.prUrl
          ? { text: ` ${sanitizeText(u.prUrl)} · loops ${u.loops} · $${u.costUsd.toFixed(2)}` }
          : { text: ` loops ${u.loops} · $${u.costUsd.toFixed(2)}${u.reason ? ` · ${sanitizeText(u.reason)}` : ''}` },
      ] as Line,
  );
}

export function renderIssueSection(snap: DashboardSnapshot): Line[] {
  const issue = snap.issue;
  if (!issue) return [];
  const ref = `${issue.repo ?? ''}#${issue.number}`;
  const facts = [
    `progress comments ${issue.commentsPosted}`,
    issue.prUrl ? `PR ${issue.prUrl}` : undefined,
    issue.followups > 0 ? `follow-ups ${issue.followups}` : undefined,
    issue.closed ? 'closed' : undefined,
  ].filter(Boolean);
  return [[{ text: sanitizeText(issue.title ? `${ref} ${issue.title}` : ref) }], [{ text: sanitizeText(facts.join(' · ')) }]];
}

/** The last `max` lines of ralph.log. */
export function ralphLogLines(snap: DashboardSnapshot, max: number): Line[] {
  if (snap.ralphLogTail.length === 0) return [[{ text: 'No log file found', style: 'dim' }]];
  return snap.ralphLogTail.slice(-max).map((raw) => {
    const text = sanitizeText(raw);
    return [{ text, style: logLevelStyle(text) }];
  });
}

export function headingLine(title: string, columns: number): Line {
  const label = `── ${title} `;
  return [{ text: label + '─'.repeat(Math.max(0, columns - visibleWidth(label))), style: 'blue' }];
}

function meterLine(label: string, used: number, max: number | undefined, note: string, columns: number): Line {
  const value = max ? `${formatCount(used)}/${formatCount(max)}` : formatCount(used);
  return barLine(label, value, note, max ? used / max : undefined, columns);
}

// `label value [bar] note`: the bar takes what room is left (at most 20 cells) and is left out
// below 5 cells, so a narrow pane still shows the numbers.
function barLine(label: string, value: string, note: string, ratio: number | undefined, columns: number, barFirst = false): Line {
  const fixed = visibleWidth(label) + visibleWidth(value) + visibleWidth(note) + 4;
  const cells = Math.min(20, columns - fixed);
  const parts: Line = [];
  const bar: Line = [];
  if (ratio !== undefined && cells >= 5) {
    const clamped = Math.min(1, Math.max(0, ratio));
    const full = Math.round(clamped * cells);
    const style: Style = ratio >= 1 ? 'red' : ratio >= 0.8 ? 'yellow' : 'green';
    bar.push({ text: '[' }, { text: '█'.repeat(full), style }, { text: '░'.repeat(cells - full), style: 'dim' }, { text: '] ' });
  }
  if (barFirst) parts.push(...bar, { text: label + value, style: 'bold' }, { text: ` ${note}` });
  else parts.push({ text: label }, { text: value, style: 'bold' }, { text: ' ' }, ...bar, { text: note, style: 'dim' });
  return parts;
}

/** 1234567 → 1,234,567 (without Intl, which is slow to start on every idle frame). */
function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function statusStyle(status: string | undefined): Style | undefined {
  switch (status) {
    case 'running':
    case 'executing':
    case 'success':
    case 'completed':
    case 'gate_passed':
      return 'green';
    case 'halted':
    case 'failed':
    case 'error':
    case 'interrupted':
    case 'gate_failed':
    case 'gate_not_verified':
      return 'red';
    case 'paused':
    case 'stopped':
    case 'timed_out_productive':
      return 'yellow';
    default:
      return undefined;
  }
}

function breakerStyle(state: string): Style {
  if (state === 'CLOSED') return 'green';
  if (state === 'HALF_OPEN') return 'yellow';
  return 'error';
}

function logLevelStyle(line: string): Style | undefined {
  if (line.includes('[ERROR]')) return 'red';
  if (line.includes('[WARN]')) return 'yellow';
  if (line.includes('[SUCCESS]')) return 'green';
  if (line.includes('[LOOP]')) return 'magenta';
  return undefined;
}
