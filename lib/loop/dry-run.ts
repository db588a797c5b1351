// --dry-run: show exactly what one loop would run — the argv, the loop context and the
// settings that shape it — without starting the agent or counting a call.

import { agentModelOf } from '../agents/choose-agent.js';
import { appendFileNoFollow } from '../state/no-follow.js';
import { relative } from 'node:path';
import { splitAllowedTools } from '../config/schema.js';
import { buildLoopContext } from '../agents/loop-context.js';
import { describePlanProgress } from '../plan/fix-plan.js';
import { movedControlFiles } from '../state/paths.js';
import { callBudgetOf } from '../limits/run-spend.js';
import type { Run } from './run.js';

export function describeDryRun(run: Run, loop: number, prompt: string): void {
  const { config, deps } = run;
  const plan = run.state.plan.view;
  const context = buildLoopContext({ loop, plan, files: movedControlFiles(run.paths), breakerState: null, previousAnalysis: null });
  const invocation = run.state.agentChoice.agent.buildInvocation({
    command: run.state.agentChoice.command,
    prompt,
    outputFormat: config.CLAUDE_OUTPUT_FORMAT === 'text' ? 'text' : 'json',
    model: agentModelOf(config, run.state.agentChoice.agent),
    effort: config.CLAUDE_EFFORT || undefined,
    allowedTools: splitAllowedTools(config.ALLOWED_TOOLS),
    loopContext: context,
    maxBudgetUsd: callBudgetOf(run),
    inheritedEnv: deps.env,
  });
  // As it would run: inside the sandbox's wrapper (--sandbox), with the agent's own output format.
  const wrapped = run.sandbox.wrap({ ...invocation, passEnv: run.state.agentChoice.agent.sandboxEnv }, deps.env);
  const formatAt = invocation.args.indexOf('--output-format');
  const output = formatAt >= 0 ? invocation.args[formatAt + 1] : config.CLAUDE_OUTPUT_FORMAT;
  deps.logger.info('[DRY RUN] Skipping actual Claude Code execution');
  const lines = [
    `[DRY RUN] Loop #${loop} would execute:`,
    `  ${[wrapped.cmd, ...wrapped.args].map(quoteForDisplay).join(' ')}`,
    `  stdin: ${run.promptFile} (${prompt.length} chars), then the loop context (${invocation.stdin.length} chars in all)`,
    // Names only: a value may hold the user's own secrets (OpenCode's config can carry API keys).
    ...(invocation.env ? [`  env: ${Object.keys(invocation.env).join(', ')} (set for the agent)`] : []),
    `  context: ${context}`,
    `  timeout: ${config.CLAUDE_TIMEOUT_MINUTES}m, output: ${output}, calls/hour: ${config.MAX_CALLS_PER_HOUR}, session continuity: ${config.SESSION_CONTINUITY}`,
    `  plan: ${relative(run.paths.projectDir, run.paths.fixPlan)}: ${plan ? `${describePlanProgress(plan)}, ${plan.blocking.open} remaining` : 'not found'}`,
    '[DRY RUN] Simulation complete — no API call was made',
  ];
  deps.stdout.write(`${lines.join('\n')}\n`);
  // The live-output pane of `ralph --monitor` shows it too.
  appendFileNoFollow(run.paths.liveLog, `${lines.join('\n')}\n`, 0o600);
}

function quoteForDisplay(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
