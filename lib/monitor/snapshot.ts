// DashboardSnapshot: everything the dashboard shows, as plain data. It is built purely from the
// texts of the state files (assemble-snapshot.ts), ours or the Bash tool's, which are read by
// snapshot-loader.ts; render.ts draws it.

/** Blocking items drive done and total; optional ones are counted apart. */
export interface PlanProgress {
  done: number;
  total: number;
  /** Unchecked items under optional headings (they do not block completion). */
  optionalOpen: number;
  optionalDone: number;
}

export interface LoopStatusView {
  /** Loops run (status.json `loops_run`), else the Bash tool's `loop_count`. */
  loopCount?: number;
  /** Ours: the agent the loop calls (claude, codex, …; a fallback while the primary is limited). */
  agent?: string;
  status?: string;
  lastAction?: string;
  exitReason?: string;
  timestamp?: string;
  callsThisHour?: number;
  maxCallsPerHour?: number;
  tokensThisHour?: number;
  maxTokensPerHour?: number;
  sandbox?: { provider: string; id?: string; status?: string; estimatedCost?: string };
  /** Ours: spend of this run and its budget (status.json extras). */
  costUsdRun?: number;
  /** Calls of the run whose cost is unknown (cut off mid-call). */
  unknownCostCalls?: number;
  maxCostUsd?: number;
  tokensRun?: number;
  maxLoops?: number;
  /** Ours: when the run started and when status.json was last written (epoch ms). */
  startedAt?: number;
  updatedAt?: number;
  /** Ours: what the guards undid or refused in this run (status.json `run_alerts`). */
  alerts?: string[];
  /** Ours: open plan items the agent hid, which still count as open (as the log names them). */
  planNote?: string;
  /** Ours: the closing summary of the run that ended (status.json `run_summary`), one line each. */
  runSummary?: string[];
}

export interface AgentProgressView {
  status: string;
  indicator?: string;
  /** Seconds the agent has been working, as of `takenAt`. */
  workingSeconds?: number;
  lastOutput?: string;
  lastTool?: string;
  filesChanged?: number;
  error?: string;
  /** Seconds since the Bash tool last rewrote an `executing` progress.json, when overdue. */
  staleSeconds?: number;
}

export interface BreakerView {
  state: string;
  reason?: string;
  consecutiveNoProgress?: number;
  consecutiveSameError?: number;
  consecutivePermissionDenials?: number;
  lastProgressLoop?: number;
  totalOpens?: number;
  currentLoop?: number;
}

export interface RateWindowView {
  calls?: number;
  tokens?: number;
  /** `YYYYMMDDHH` (local time) of the hour the counters belong to. */
  hourKey?: string;
}

export interface AnalysisView {
  loopNumber?: number;
  exitSignal?: boolean;
  filesModified?: number;
  confidence?: number;
  workSummary?: string;
  permissionDenials?: number;
  askingQuestions?: boolean;
}

export interface UsageWaitView {
  resumeAt: number;
  reason?: string;
  source?: string;
}

/** One unit of a `ralph --parallel` run (.ralph/parallel.json). */
export interface UnitView {
  slug: string;
  state: string;
  loops: number;
  costUsd: number;
  worktree: string;
  reason: string;
  /** `--parallel-land pr`: the unit's pull request. */
  prUrl?: string;
}

export interface QueueView {
  total: number;
  completed: number;
  pending: number;
  processing: number;
  failed: number;
  current?: string;
}

/** The GitHub issue of `--github-issue` (.github_lifecycle_state): what has been posted. */
export interface IssueLifecycleView {
  number: number;
  repo?: string;
  title?: string;
  commentsPosted: number;
  prUrl?: string;
  closed: boolean;
  followups: number;
}

/** The newest iteration session record (ours): its state and the distance to the goal. */
export interface RunView {
  /** The record's run; `earlier`: not the current run (the one .ralph/.run_state names). */
  runId?: string;
  earlier?: boolean;
  status: string;
  attempts: number;
  /** e.g. `gap 3 (2 open items + 1 failing test) ↓ improving` */
  gapText: string;
}

export interface DashboardSnapshot {
  projectDir: string;
  takenAt: number;
  ralphDirFound: boolean;
  /** status.json says the loop is active, but the process it names is gone (kill -9, crash). */
  loopGone?: boolean;
  status?: LoopStatusView;
  progress?: AgentProgressView;
  breaker?: BreakerView;
  rate: RateWindowView;
  analysis?: AnalysisView;
  plan?: PlanProgress;
  /** The plan file's name (FIX_PLAN_FILE), project-relative. */
  planFile?: string;
  usageWait?: UsageWaitView;
  queue?: QueueView;
  units?: UnitView[];
  issue?: IssueLifecycleView;
  run?: RunView;
  /** The run .ralph/.run_state names (undefined: none known, e.g. only the Bash tool ran here). */
  currentRunId?: string;
  ralphLogTail: string[];
  liveTail: string[];
  warnings: string[];
}

/** File texts as read; `undefined` = the file does not exist. Tails hold only the last few KB. */
export interface StateTexts {
  status?: string;
  progress?: string;
  breaker?: string;
  callCount?: string;
  tokenCount?: string;
  lastReset?: string;
  analysis?: string;
  fixPlan?: string;
  usageWait?: string;
  queue?: string;
  parallel?: string;
  githubLifecycle?: string;
  /** .ralph/.run_state: which run is the current one. */
  runState?: string;
  ralphLogTail?: string;
  liveLogTail?: string;
}
