// ralph's built-in scripted agent, which `ralph --demo` runs in place of Claude Code: it calls no
// model and spends nothing. Called as Claude Code is (`-p --output-format stream-json …`, the
// prompt on stdin), it does the first open task of .ralph/fix_plan.md as lib/demo/demo-script.ts
// scripts it, ticks the task, commits, and reports in Claude Code's stream-json, with the
// RALPH_STATUS block ralph reads. Only the demo's project is touched: the current folder.

import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { DEMO_STEPS, type DemoStep } from '../../demo/demo-script.js';
import { nodeProcessRunner } from '../../platform/process.js';
import { runGitCommand } from '../../platform/git-operations.js';

/** The version ralph's start-up check reads (a Claude Code release this agent answers like). */
export const DEMO_AGENT_VERSION = '2.1.332 (ralph demo agent)';

const PLAN = '.ralph/fix_plan.md';
const OPEN_ITEM = /^- \[ \] (.*)$/m;
// The demo's commits carry their own author: the user's git identity is not needed, nor used.
const IDENTITY = ['-c', 'user.name=ralph demo agent', '-c', 'user.email=demo-agent@ralph.invalid', '-c', 'commit.gpgsign=false'];

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--version')) {
    process.stdout.write(`${DEMO_AGENT_VERSION}\n`);
    return 0;
  }
  if (argv.includes('--help')) {
    process.stdout.write('ralph demo agent: the scripted stand-in for Claude Code that ralph --demo runs\n');
    return 0;
  }
  readFileSync(0); // The prompt: read, as the CLI reads it, and not needed.
  const session = randomUUID();
  emit({ type: 'system', subtype: 'init', session_id: session, model: 'ralph-demo', tools: [], cwd: process.cwd() });
  const plan = readFileSync(PLAN, 'utf8');
  const open = OPEN_ITEM.exec(plan);
  const step = open ? DEMO_STEPS.find((s) => s.task === open[1]?.trim()) : undefined;
  if (!open || !step)
    return finish(session, 'Nothing of the demo script is left to do.', {
      STATUS: 'COMPLETE',
      EXIT_SIGNAL: true,
      TASKS_COMPLETED_THIS_LOOP: 0,
      FILES_MODIFIED: 0,
    });
  await doStep(step, plan.replace(open[0], `- [x] ${open[1]}`));
  const left = OPEN_ITEM.test(readFileSync(PLAN, 'utf8'));
  emit({ type: 'assistant', session_id: session, message: { role: 'assistant', content: [{ type: 'text', text: `Working on: ${step.task}` }] } });
  return finish(session, step.report, {
    STATUS: left ? 'IN_PROGRESS' : 'COMPLETE',
    TASKS_COMPLETED_THIS_LOOP: 1,
    FILES_MODIFIED: Object.keys(step.files).length,
    TESTS_STATUS: 'PASSING',
    WORK_TYPE: 'IMPLEMENTATION',
    EXIT_SIGNAL: !left,
    RECOMMENDATION: left ? 'Continue with the next task' : 'All tasks are done',
  });
}

async function doStep(step: DemoStep, tickedPlan: string): Promise<void> {
  for (const [file, text] of Object.entries(step.files)) writeFileSync(file, text);
  writeFileSync(PLAN, tickedPlan);
  for (const args of [
    ['add', '--', ...Object.keys(step.files), PLAN],
    [...IDENTITY, 'commit', '-q', '--no-verify', '-m', step.task],
  ]) {
    const result = await runGitCommand(nodeProcessRunner, args, { cwd: process.cwd(), env: process.env, timeoutMs: 30_000 });
    if (result.code !== 0) throw new Error(`git ${args[0] === '-c' ? 'commit' : args[0]} failed: ${result.stderr.trim()}`);
  }
}

function finish(session: string, text: string, status: Record<string, string | number | boolean>): number {
  const block = ['---RALPH_STATUS---', ...Object.entries(status).map(([key, value]) => `${key}: ${String(value)}`), '---END_RALPH_STATUS---'].join('\n');
  emit({
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: 1,
    duration_api_ms: 0,
    num_turns: 1,
    result: `${text}\n\n${block}`,
    session_id: session,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  });
  return 0;
}

function emit(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

process.exitCode = await main(process.argv.slice(2));
