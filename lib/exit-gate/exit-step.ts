// The exit gate as a loop step: read what the last loop left (exit signals, the response
// analysis, fix_plan.md), decide whether the run is done, and when it is, stop with the
// message and the exit code that say why (completion, permission denials, completion conflict).

import { classifyPermissionDenials, suggestAllowedTools, splitAllowedTools } from '../analysis/allowed-tools-suggestion.js';
import { formatPermissionHalt } from '../breaker/breaker-messages.js';
import type { RalphConfig } from '../config/schema.js';
import { evaluateExitGate, type ExitGateConfig, type ExitGateResult } from './exit-gate.js';
import { stripTerminalControls } from '../text/terminal-text.js';
import { EXIT } from '../errors.js';
import { resetRunSession } from '../sessions/agent-session.js';
import { contentEvidence } from '../analysis/loop-progress.js';
import { stopRun, type Run, type RunStop } from '../loop/run.js';

const RUN_ENDS = { keepAnalysis: true };

/** The exit gate's settings, from the configuration (their defaults are the schema's). */
export function exitGateConfig(config: RalphConfig): ExitGateConfig {
  return {
    maxConsecutiveTestLoops: config.MAX_CONSECUTIVE_TEST_LOOPS,
    maxConsecutiveDoneSignals: config.MAX_CONSECUTIVE_DONE_SIGNALS,
    exitRequiresPlanComplete: config.EXIT_REQUIRES_PLAN_COMPLETE,
    completionConflictLimit: config.COMPLETION_CONFLICT_LIMIT,
  };
}

export function evaluateGate(run: Run): ExitGateResult {
  const { config } = run;
  // From memory: .exit_signals is written through for the monitor, never read back (the agent can write it).
  const signals = run.state.evidence.signals.value;
  // Parsed once here for the loop: the context the agent is given shows the same plan.
  const plan = run.state.plan.refresh(contentEvidence(run));
  const result = evaluateExitGate({
    exitSignals: signals,
    // From memory too: .response_analysis is the agent's to write as much as ralph's.
    analysis: run.state.evidence.analysis.value,
    plan,
    config: exitGateConfig(config),
    conflictCount: run.state.conflicts.count,
  });
  run.state.conflicts.note(result, run.state.content?.lastProgress ?? false);
  return result;
}

export function exitFromGate(run: Run, gate: Extract<ExitGateResult, { kind: 'exit' }>): RunStop {
  const { deps, config } = run;
  if (gate.reason === 'permission_denied') {
    const allowed = splitAllowedTools(config.ALLOWED_TOOLS);
    const denials = lastDenials(run);
    const { actionable } = classifyPermissionDenials(denials, allowed);
    const suggestion = suggestAllowedTools(allowed, actionable.length > 0 ? actionable : denials);
    // The box quotes the denied commands, which may carry a token or escape sequences: clean it
    // as the logger does.
    deps.stderr.write(
      deps.redact(
        stripTerminalControls(
          `${formatPermissionHalt(actionable.length > 0 ? actionable : denials, suggestion, run.allowedToolsFrom, { threshold: config.CB_PERMISSION_DENIAL_THRESHOLD }).join('\n')}\n`,
        ),
      ),
    );
    resetRunSession(run, 'permission_denied', run.state.loopCount, RUN_ENDS);
    return stopRun(
      EXIT.halted,
      'halted',
      'permission_denied',
      'permission_denied',
      `Permission denied: ${(run.state.evidence.analysis.value?.analysis.denied_commands ?? []).join(', ')}. Needed: ${suggestion.line} (ALLOWED_TOOLS from ${run.allowedToolsFrom.detail ?? run.allowedToolsFrom.kind})`,
    );
  }
  if (gate.reason === 'completion_conflict') {
    const items = gate.conflict?.openItems ?? [];
    deps.logger.error(
      `Claude claimed completion ${gate.conflict?.count ?? config.COMPLETION_CONFLICT_LIMIT} loops in a row, but fix_plan.md still has ${items.length} open item(s)`,
    );
    for (const item of items.slice(0, 10)) deps.stderr.write(`  - [ ] ${item}\n`);
    resetRunSession(run, 'completion_conflict', run.state.loopCount, RUN_ENDS);
    return stopRun(
      EXIT.halted,
      'halted',
      'completion_conflict',
      'completion_conflict',
      'Completion claimed while fix_plan.md has open items; tick finished items or set EXIT_REQUIRES_PLAN_COMPLETE=false',
    );
  }
  deps.logger.success(`🏁 Graceful exit triggered: ${gate.reason}`);
  resetRunSession(run, 'project_complete', run.state.loopCount, RUN_ENDS);
  return stopRun(EXIT.ok, 'completed', gate.reason, 'graceful_exit');
}

function lastDenials(run: Run) {
  return (run.state.evidence.analysis.value?.analysis.denied_commands ?? []).map((entry) => {
    const m = /^Bash\((.*)\)$/s.exec(entry);
    return m ? { tool_name: 'Bash', tool_input: { command: m[1] } } : { tool_name: entry, tool_input: null };
  });
}
