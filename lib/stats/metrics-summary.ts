// What ralph-stats reports about metrics.jsonl, folded from its lines in one pass in file order:
// the Bash tool's four numbers (its field names and arithmetic, so existing scripts keep working)
// and the full summary behind `--format table` and `--full`. Every sum is taken in file order, so
// the report depends on the file alone, never on the machine. Pure: lines in, summary out.
//
// Runs and per-loop cost come from neighbouring lines: a run starts at the first line and where
// `loop` does not go up, and `cost_usd` is the run's cumulative cost, so a loop's cost is the step
// from the line before (or `loop_cost_usd` when a line carries it).

/** The chart's grid: the file's bytes cut into this many blocks, a line in its first byte's. */
export const CHART_BLOCKS = 4096;

/** `ralph-stats.sh` output: count, `.success == true` count, mean `.duration`, sum of `.calls`. */
export interface BashStats {
  total_loops: number;
  successful: number;
  avg_duration: number;
  total_calls: number;
}

export interface ChartRow {
  /** 1-based positions of the first and last loop in the row (file order, across runs). */
  first_loop: number;
  last_loop: number;
  loops: number;
  successful: number;
  files_changed: number;
  cost_usd: number;
}

export interface MetricsSummary extends BashStats {
  runs: number;
  success_rate: number;
  skipped_lines: number;
  since: string | null;
  first_timestamp: string | null;
  last_timestamp: string | null;
  duration_seconds: { min: number; p50: number; p90: number; p99: number; max: number; total: number } | null;
  tokens: { input: number; output: number; cache_read: number; cache_creation: number; total: number } | null;
  cost_usd: { total: number; per_loop: number } | null;
  files_changed: number | null;
  exit_signals: number;
  outcomes: Record<string, number>;
  tests_status: Record<string, number>;
  /** The same statuses by where they came from, and the loops that had none. */
  tests_by_source: TestsBySource;
  chart: ChartRow[];
  /** Per agent (the line's `agent`; lines written before agents beyond Claude are Claude's). */
  by_agent: Record<string, AgentTotals>;
}

/**
 * Test statuses by their source (the line's `tests_source`): run by the verification gate,
 * claimed by the agent (no gate ran), or not recorded (a line written before the field).
 */
export interface TestsBySource {
  gate: Record<string, number>;
  agent: Record<string, number>;
  unrecorded: Record<string, number>;
  /** Loops with no test status at all. */
  none: number;
}

export interface AgentTotals {
  loops: number;
  successful: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cost_usd: number;
}

/** Every field `add` reads from a line (the fast line reader keeps these and no others). */
export const METRIC_FIELDS = [
  'timestamp',
  'loop',
  'duration',
  'success',
  'calls',
  'tokens',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_creation_tokens',
  'cost_usd',
  'loop_cost_usd',
  'files_changed',
  'exit_signal',
  'outcome',
  'tests_status',
  'agent',
  'tests_source',
] as const;

/** A metrics line as the summary sees it: JSON.parse's object, or the fast reader's. */
export type MetricLine = { readonly [K in (typeof METRIC_FIELDS)[number]]?: unknown };

const AGENT_NAME = /^[a-z][a-z0-9-]{0,30}$/;

export interface SummaryOptions {
  /** The file's size in bytes when reading began: it sets the chart grid. */
  size: number;
  /** Keep only lines whose timestamp is at or after this time (ms). */
  sinceMs?: number;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const block = () => new Float64Array(CHART_BLOCKS);

export class MetricsSummarizer {
  private readonly n = {
    lines: 0,
    skipped: 0,
    successful: 0,
    durationSum: 0,
    calls: 0,
    runs: 0,
    cost: 0,
    costLines: 0,
    tokenLines: 0,
    files: 0,
    fileLines: 0,
    exitSignals: 0,
  };
  private readonly durations: number[] = [];
  private readonly tokens = { input: 0, output: 0, cache_read: 0, cache_creation: 0, total: 0 };
  private readonly outcomes = new Map<string, number>();
  private readonly tests = new Map<string, number>();
  private readonly testsBySource = { gate: new Map<string, number>(), agent: new Map<string, number>(), unrecorded: new Map<string, number>() };
  private noTests = 0;
  private readonly agents = new Map<string, AgentTotals>();
  private firstTimestamp: unknown;
  private lastTimestamp: unknown;
  private readonly blocks = { lines: block(), successful: block(), files: block(), cost: block() };
  private readonly blockBytes: number;
  // The line before, kept or not (where a run starts, what a cumulative cost steps from).
  // Two fields rather than an object a line: this runs a million times.
  private seenLine = false;
  private beforeLoop: number | undefined;
  private beforeCum: number | undefined;
  private keptInRun = false;

  constructor(private readonly options: SummaryOptions) {
    this.blockBytes = Math.max(1, Math.ceil(options.size / CHART_BLOCKS));
  }

  /** A line that is not a JSON object (torn by a kill, garbage). */
  skip(): void {
    this.n.skipped++;
  }

  /** One JSON object line, starting at byte `offset` of the file. */
  add(r: MetricLine, offset: number): void {
    const { beforeLoop, beforeCum } = this;
    const loop = num(r.loop);
    const runStart = !this.seenLine || (loop !== undefined && beforeLoop !== undefined && loop <= beforeLoop);
    const cum = num(r.cost_usd);
    let cost = num(r.loop_cost_usd);
    if (cost === undefined && cum !== undefined) {
      const step = !runStart && beforeCum !== undefined && cum >= beforeCum;
      cost = step ? cum - beforeCum : cum;
    }
    this.seenLine = true;
    this.beforeLoop = loop;
    this.beforeCum = cum;
    if (runStart) this.keptInRun = false;
    if (this.options.sinceMs !== undefined && !(timestampMs(r.timestamp) >= this.options.sinceMs)) return;
    const n = this.n;
    if (!this.keptInRun) n.runs++;
    this.keptInRun = true;

    if (n.lines++ === 0) this.firstTimestamp = r.timestamp;
    this.lastTimestamp = r.timestamp;
    const success = r.success === true;
    if (success) n.successful++;
    const duration = num(r.duration);
    if (duration !== undefined) {
      n.durationSum += duration;
      this.durations.push(duration);
    }
    n.calls += num(r.calls) ?? 0;
    if (cost !== undefined) {
      n.cost += cost;
      n.costLines++;
    }
    this.addTokens(r);
    const files = num(r.files_changed);
    if (files !== undefined) {
      n.files += files;
      n.fileLines++;
    }
    if (r.exit_signal === true) n.exitSignals++;
    if (typeof r.outcome === 'string') this.outcomes.set(r.outcome, (this.outcomes.get(r.outcome) ?? 0) + 1);
    this.addTestsStatus(r);
    this.addAgent(r, success, cost ?? 0);

    // Past the size given (a file that grew): the last block, rather than off the grid.
    const b = Math.min(CHART_BLOCKS - 1, Math.floor(offset / this.blockBytes));
    this.blocks.lines[b]! += 1;
    this.blocks.successful[b]! += success ? 1 : 0;
    this.blocks.files[b]! += files ?? 0;
    this.blocks.cost[b]! += cost ?? 0;
  }

  private addTestsStatus(r: MetricLine): void {
    const status = r.tests_status;
    if (typeof status !== 'string') {
      this.noTests++;
      return;
    }
    this.tests.set(status, (this.tests.get(status) ?? 0) + 1);
    const source = r.tests_source === 'gate' || r.tests_source === 'agent' ? r.tests_source : 'unrecorded';
    const bySource = this.testsBySource[source];
    bySource.set(status, (bySource.get(status) ?? 0) + 1);
  }

  private addAgent(r: MetricLine, success: boolean, cost: number): void {
    const name = typeof r.agent === 'string' && AGENT_NAME.test(r.agent) ? r.agent : 'claude';
    let t = this.agents.get(name);
    if (!t) this.agents.set(name, (t = { loops: 0, successful: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: 0 }));
    t.loops++;
    if (success) t.successful++;
    t.input_tokens += num(r.input_tokens) ?? 0;
    t.output_tokens += num(r.output_tokens) ?? 0;
    t.cache_read_tokens += num(r.cache_read_tokens) ?? 0;
    t.cost_usd += cost;
  }

  /** Lines that were not JSON objects. */
  get skippedLines(): number {
    return this.n.skipped;
  }

  /** The Bash tool's four numbers, with its arithmetic. */
  bashStats(): BashStats {
    const n = this.n;
    return {
      total_loops: n.lines,
      successful: n.successful,
      // jq: `(map(.duration) | add) / length` — a missing duration adds nothing but still counts.
      avg_duration: n.lines > 0 ? n.durationSum / n.lines : 0,
      total_calls: n.calls,
    };
  }

  /** The full summary, its chart in at most `chartRows` rows. */
  summary(chartRows = 12): MetricsSummary {
    const { n, tokens } = this;
    const durations = Float64Array.from(this.durations).sort();
    return {
      ...this.bashStats(),
      runs: n.runs,
      success_rate: n.lines > 0 ? round(n.successful / n.lines, 4) : 0,
      skipped_lines: n.skipped,
      since: this.options.sinceMs === undefined ? null : new Date(this.options.sinceMs).toISOString(),
      first_timestamp: isoOf(this.firstTimestamp),
      last_timestamp: isoOf(this.lastTimestamp),
      duration_seconds:
        durations.length === 0
          ? null
          : {
              min: durations[0]!,
              p50: percentile(durations, 50),
              p90: percentile(durations, 90),
              p99: percentile(durations, 99),
              max: durations[durations.length - 1]!,
              total: n.durationSum,
            },
      tokens: n.tokenLines === 0 && tokens.cache_read === 0 && tokens.cache_creation === 0 ? null : { ...tokens },
      cost_usd: n.costLines === 0 ? null : { total: round(n.cost, 6), per_loop: round(n.cost / n.costLines, 6) },
      files_changed: n.fileLines === 0 ? null : n.files,
      exit_signals: n.exitSignals,
      outcomes: Object.fromEntries(this.outcomes),
      tests_status: Object.fromEntries(this.tests),
      tests_by_source: {
        gate: Object.fromEntries(this.testsBySource.gate),
        agent: Object.fromEntries(this.testsBySource.agent),
        unrecorded: Object.fromEntries(this.testsBySource.unrecorded),
        none: this.noTests,
      },
      chart: this.chartRows(chartRows),
      by_agent: Object.fromEntries(this.agents),
    };
  }

  private addTokens(r: MetricLine): void {
    const t = this.tokens;
    const input = num(r.input_tokens);
    const output = num(r.output_tokens);
    const total = num(r.tokens);
    t.input += input ?? 0;
    t.output += output ?? 0;
    t.cache_read += num(r.cache_read_tokens) ?? 0;
    t.cache_creation += num(r.cache_creation_tokens) ?? 0;
    // `tokens` is input + output (what the hourly token budget counts).
    t.total += total ?? (input ?? 0) + (output ?? 0);
    if (total !== undefined || input !== undefined || output !== undefined) this.n.tokenLines++;
  }

  // Whole blocks in file order, until a row holds ⌈loops / rows⌉ loops.
  private chartRows(rows: number): ChartRow[] {
    const b = this.blocks;
    const target = Math.ceil(this.n.lines / Math.max(1, rows));
    const out: ChartRow[] = [];
    let row: ChartRow | undefined;
    let position = 0;
    for (let i = 0; i < CHART_BLOCKS; i++) {
      if (b.lines[i] === 0) continue;
      if (!row) out.push((row = { first_loop: position + 1, last_loop: position, loops: 0, successful: 0, files_changed: 0, cost_usd: 0 }));
      row.loops += b.lines[i]!;
      row.successful += b.successful[i]!;
      row.files_changed += b.files[i]!;
      row.cost_usd += b.cost[i]!;
      position += b.lines[i]!;
      row.last_loop = position;
      if (row.loops >= target) row = undefined;
    }
    for (const r of out) r.cost_usd = round(r.cost_usd, 6);
    return out;
  }
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

function timestampMs(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

function isoOf(timestamp: unknown): string | null {
  const ms = timestampMs(timestamp);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
