// Every path ralph reads or writes under a project, in one place. Names follow the Bash tool
// so either version can read the other's state.

import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RalphError } from '../errors.js';

export const RALPH_DIR = '.ralph';

/** The control files the user may move (.ralphrc PROMPT_FILE, FIX_PLAN_FILE, AGENT_FILE), as absolute paths. */
export interface ControlFiles {
  prompt: string;
  fixPlan: string;
  agent: string;
}

/** The settings that name them, relative to the project; empty means the default. */
export interface ControlFileSettings {
  PROMPT_FILE: string;
  FIX_PLAN_FILE: string;
  AGENT_FILE: string;
}

export interface RalphPaths {
  projectDir: string;
  /** ralph's ledger outside the project (lib/state/ledger.ts); set by a run, absent for read-only views. */
  ledger?: string;
  ralphDir: string;
  ralphrc: string;
  prompt: string;
  fixPlan: string;
  agent: string;
  specsDir: string;
  examplesDir: string;
  logsDir: string;
  docsGeneratedDir: string;
  status: string;
  progress: string;
  callCount: string;
  tokenCount: string;
  lastReset: string;
  exitSignals: string;
  responseAnalysis: string;
  circuitBreakerState: string;
  circuitBreakerHistory: string;
  claudeSessionId: string;
  ralphSession: string;
  ralphSessionHistory: string;
  liveLog: string;
  ralphLog: string;
  metrics: string;
  lock: string;
  /** Persisted usage-limit wait (ours; the Bash tool keeps it in memory only). */
  usageLimitWait: string;
  /** Each agent's usage-limit reset while ralph runs on a fallback agent (ours). */
  agentLimits: string;
  /** Per-run spend and budget counters (ours). */
  runState: string;
  /** Iteration session records (ours), one JSON file per run. */
  sessionsDir: string;
  /** Private git index (and object store outside a repository) for content snapshots (ours). */
  contentSnapshot: string;
  /** The GitHub issue lifecycle of `--github-issue` (Bash: same name and fields). */
  githubLifecycleState: string;
  /** The issue queue of `ralph-queue`. */
  queue: string;
  /** One queue run per project (`ralph-queue process`), as .ralph.lock is one loop. */
  queueLock: string;
}

/**
 * Every path of a project. The control files are the default ones unless `files` says
 * otherwise; use projectPaths() wherever the configuration is known.
 */
export function ralphPaths(projectDir: string, files?: ControlFiles): RalphPaths {
  const ralphDir = join(projectDir, RALPH_DIR);
  const logsDir = join(ralphDir, 'logs');
  return {
    projectDir,
    ralphDir,
    ralphrc: join(projectDir, '.ralphrc'),
    prompt: files?.prompt ?? join(ralphDir, 'PROMPT.md'),
    fixPlan: files?.fixPlan ?? join(ralphDir, 'fix_plan.md'),
    agent: files?.agent ?? join(ralphDir, 'AGENT.md'),
    specsDir: join(ralphDir, 'specs'),
    examplesDir: join(ralphDir, 'examples'),
    logsDir,
    docsGeneratedDir: join(ralphDir, 'docs', 'generated'),
    status: join(ralphDir, 'status.json'),
    progress: join(ralphDir, 'progress.json'),
    callCount: join(ralphDir, '.call_count'),
    tokenCount: join(ralphDir, '.token_count'),
    lastReset: join(ralphDir, '.last_reset'),
    exitSignals: join(ralphDir, '.exit_signals'),
    responseAnalysis: join(ralphDir, '.response_analysis'),
    circuitBreakerState: join(ralphDir, '.circuit_breaker_state'),
    circuitBreakerHistory: join(ralphDir, '.circuit_breaker_history'),
    claudeSessionId: join(ralphDir, '.claude_session_id'),
    ralphSession: join(ralphDir, '.ralph_session'),
    ralphSessionHistory: join(ralphDir, '.ralph_session_history'),
    liveLog: join(ralphDir, 'live.log'),
    ralphLog: join(logsDir, 'ralph.log'),
    metrics: join(logsDir, 'metrics.jsonl'),
    lock: join(ralphDir, '.ralph.lock'),
    usageLimitWait: join(ralphDir, '.usage_limit_wait'),
    agentLimits: join(ralphDir, '.agent_limits'),
    runState: join(ralphDir, '.run_state'),
    sessionsDir: join(ralphDir, 'sessions'),
    contentSnapshot: join(ralphDir, '.content'),
    githubLifecycleState: join(ralphDir, '.github_lifecycle_state'),
    queue: join(ralphDir, 'queue.json'),
    queueLock: join(ralphDir, '.queue.lock'),
  };
}

/** The project's paths with the control files its configuration names: the one source for every reader. */
export function projectPaths(projectDir: string, settings: ControlFileSettings): RalphPaths {
  return ralphPaths(projectDir, resolveControlFiles(projectDir, settings));
}

/**
 * PROMPT_FILE, FIX_PLAN_FILE and AGENT_FILE as absolute paths. The plan and AGENT.md must stay
 * inside the project (ralph reads and the agent edits them there); PROMPT_FILE keeps the Bash
 * tool's freedom to point anywhere.
 */
export function resolveControlFiles(projectDir: string, settings: ControlFileSettings): ControlFiles {
  const defaults = ralphPaths(projectDir);
  const at = (value: string, fallback: string) => (value.trim() === '' ? fallback : resolve(projectDir, value));
  return {
    prompt: at(settings.PROMPT_FILE, defaults.prompt),
    fixPlan: insideProject(projectDir, 'FIX_PLAN_FILE', settings.FIX_PLAN_FILE, at(settings.FIX_PLAN_FILE, defaults.fixPlan)),
    agent: insideProject(projectDir, 'AGENT_FILE', settings.AGENT_FILE, at(settings.AGENT_FILE, defaults.agent)),
  };
}

function insideProject(projectDir: string, key: string, value: string, path: string): string {
  // A symlink may lead out of a path that looks inside: check where it really is when it exists.
  const within = isWithin(projectDir, path);
  if (within && isWithin(realLocation(projectDir), realLocation(path))) return path;
  const setKey = `set ${key} in .ralphrc to a path inside the project, relative to it (e.g. ${key}=docs/${key === 'AGENT_FILE' ? 'AGENT.md' : 'plan.md'})`;
  const link = within ? linkOnTheWay(projectDir, path) : undefined;
  if (link !== undefined) {
    const name = relative(projectDir, link);
    throw new RalphError('config_invalid', `${key}=${value} leads outside the project (${projectDir}) through ${name}, a symlink to ${linkTarget(link)}`, {
      exitCode: 1,
      hint: `replace the link ${name} with the folder it points to, or ${setKey}`,
    });
  }
  throw new RalphError('config_invalid', `${key}=${value} points outside the project (${projectDir})`, { exitCode: 1, hint: setKey });
}

/** The first folder from the project down to `path` that is a symlink, if any. */
function linkOnTheWay(projectDir: string, path: string): string | undefined {
  let at = projectDir;
  for (const part of relative(projectDir, dirname(path)).split(sep)) {
    if (part === '') continue;
    at = join(at, part);
    if (lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return at;
  }
  return undefined;
}

function linkTarget(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return 'a path that is gone';
  }
}

function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Where a path really is: its nearest existing ancestor with symlinks resolved, plus the rest. */
function realLocation(path: string): string {
  const rest: string[] = [];
  for (let dir = path; ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest.reverse());
    } catch {
      if (dirname(dir) === dir) return path;
      rest.push(basename(dir));
    }
  }
}

/** FIX_PLAN_FILE and AGENT_FILE when moved from their defaults, project-relative (for display). */
export function movedControlFiles(paths: RalphPaths): { plan?: string; agent?: string } {
  const defaults = ralphPaths(paths.projectDir);
  const name = (path: string, fallback: string) => (path === fallback ? undefined : relative(paths.projectDir, path));
  return { plan: name(paths.fixPlan, defaults.fixPlan), agent: name(paths.agent, defaults.agent) };
}

/** The state files ralph replaces atomically (a directory in their place makes the rename fail). */
export function stateFilePaths(paths: RalphPaths): string[] {
  return [
    paths.status,
    paths.progress,
    paths.callCount,
    paths.tokenCount,
    paths.lastReset,
    paths.exitSignals,
    paths.responseAnalysis,
    paths.circuitBreakerState,
    paths.circuitBreakerHistory,
    paths.claudeSessionId,
    paths.ralphSession,
    paths.ralphSessionHistory,
    paths.liveLog,
    paths.ralphLog,
    paths.metrics,
    paths.lock,
    paths.usageLimitWait,
    paths.runState,
    paths.githubLifecycleState,
    paths.agentLimits,
  ];
}

/** Required by the integrity check (Bash RALPH_REQUIRED_PATHS). */
export function requiredPaths(paths: RalphPaths): string[] {
  return [paths.ralphDir, paths.prompt, paths.fixPlan, paths.agent, paths.ralphrc];
}

/** `claude_output_YYYY-MM-DD_HH-MM-SS.log`, local time, as the Bash tool names them. */
export function agentOutputLogName(date: Date): string {
  return `claude_output_${formatStamp(date, '-', '_', '-')}.log`;
}

/** `claude_stderr_YYYY-MM-DD_HH-MM-SS.log`: the same stamp as its output log, so the pair sorts together. */
export function agentStderrLogName(date: Date): string {
  return `claude_stderr_${formatStamp(date, '-', '_', '-')}.log`;
}

function formatStamp(d: Date, dateSep: string, mid: string, timeSep: string): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}${dateSep}${p(d.getMonth() + 1)}${dateSep}${p(d.getDate())}` +
    `${mid}${p(d.getHours())}${timeSep}${p(d.getMinutes())}${timeSep}${p(d.getSeconds())}`
  );
}
