// Every path ralph reads or writes under a project, in one place. Names follow the Bash tool
// (reference §2) so either version can read the other's state.

import { join } from 'node:path';

export const RALPH_DIR = '.ralph';

export interface RalphPaths {
  projectDir: string;
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
  jsonParseResult: string;
  lastOutputLength: string;
  loopStartSha: string;
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
  /** Per-run spend and budget counters (ours). */
  runState: string;
  /** Iteration session records (ours), one JSON file per run. */
  sessionsDir: string;
}

export function ralphPaths(projectDir: string): RalphPaths {
  const ralphDir = join(projectDir, RALPH_DIR);
  const logsDir = join(ralphDir, 'logs');
  return {
    projectDir,
    ralphDir,
    ralphrc: join(projectDir, '.ralphrc'),
    prompt: join(ralphDir, 'PROMPT.md'),
    fixPlan: join(ralphDir, 'fix_plan.md'),
    agent: join(ralphDir, 'AGENT.md'),
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
    jsonParseResult: join(ralphDir, '.json_parse_result'),
    lastOutputLength: join(ralphDir, '.last_output_length'),
    loopStartSha: join(ralphDir, '.loop_start_sha'),
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
    runState: join(ralphDir, '.run_state'),
    sessionsDir: join(ralphDir, 'sessions'),
  };
}

/** The state files ralph replaces atomically (a directory in their place makes the rename fail). */
export function stateFilePaths(paths: RalphPaths): string[] {
  return [
    paths.status, paths.progress, paths.callCount, paths.tokenCount, paths.lastReset, paths.exitSignals,
    paths.responseAnalysis, paths.loopStartSha, paths.circuitBreakerState, paths.circuitBreakerHistory,
    paths.claudeSessionId, paths.ralphSession, paths.ralphSessionHistory, paths.liveLog, paths.ralphLog,
    paths.metrics, paths.lock, paths.usageLimitWait, paths.runState,
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

/** `claude_stderr_YYYYmmdd_HHMMSS.log`. */
export function agentStderrLogName(date: Date): string {
  return `claude_stderr_${formatStamp(date, '', '_', '')}.log`;
}

function formatStamp(d: Date, dateSep: string, mid: string, timeSep: string): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}${dateSep}${p(d.getMonth() + 1)}${dateSep}${p(d.getDate())}` +
    `${mid}${p(d.getHours())}${timeSep}${p(d.getMinutes())}${timeSep}${p(d.getSeconds())}`
  );
}
