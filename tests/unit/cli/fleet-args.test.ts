// The workflow and the job agree: the `ralph-fleet job` and `ralph-fleet sweep` lines `init`
// writes, expanded as the runner's shell does with the step's env, parse into the options the
// workflow was made with (the label, agent, the job's time budget, cost budget, sandbox).

import { describe, expect, it } from 'vitest';
import { parseFleetArgs } from '../../../lib/cli/fleet-args.js';
import { resolveWorkflowOptions, type FleetInitOptions } from '../../../lib/fleet/init-workflow.js';
import { buildWorkflow, jobMinutesFor } from '../../../lib/fleet/workflow.js';

const BASE: FleetInitOptions = {
  output: '.github/workflows/ralph.yml', force: false, label: 'ralph', agent: 'claude', runner: 'ubuntu-latest',
  timeoutMinutes: 360, maxCostUsd: 20, maxParallel: 3, sandbox: true, schedule: '0 * * * *',
};

/** The words of a run line, as bash splits them ("$VAR" one word), up to a `>>` redirection. */
function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|(\S+)/g)) {
    if (match[2] === '>>') break;
    const expand = (text: string) => text.replace(/\$(\w+)/g, (_all, name: string) => env[name] ?? '');
    if (match[1] !== undefined) words.push(expand(match[1]));
    else words.push(...expand(match[2]!).split(/\s+/).filter(Boolean));
  }
  return words;
}

/** Each ralph-fleet step: its run line and the env values that are plain YAML strings. */
function ralphSteps(text: string): Array<{ run: string; env: Record<string, string> }> {
  const steps: Array<{ run: string; env: Record<string, string> }> = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const run = /^ {8}run: (ralph-fleet .*)$/.exec(line);
    if (!run) return;
    const env: Record<string, string> = { RALPH_ISSUE: '42' };
    for (let j = i + 1; j < lines.length && /^ {8,}\S/.test(lines[j]!); j++) {
      const value = /^ {10}(\w+): (".*")$/.exec(lines[j]!);
      if (value) env[value[1]!] = JSON.parse(value[2]!) as string;
    }
    steps.push({ run: run[1]!, env });
  });
  return steps;
}

describe('the workflow runs ralph-fleet with flags it parses', () => {
  it.each([
    [BASE],
    [{ ...BASE, label: 'ralph: next', agent: 'gemini', sandbox: false, timeoutMinutes: 45, maxCostUsd: 2.5 }],
    [{ ...BASE, agent: 'codex', output: '.github/workflows/agents.yml', maxCostUsd: 0 }],
  ])('%j', (options) => {
    const text = buildWorkflow(resolveWorkflowOptions(options, '0.12.0'));
    const steps = ralphSteps(text);
    expect(steps.map((step) => step.run.split(' ')[1])).toEqual(['job', 'sweep', 'job']);
    for (const step of steps) {
      const [command, ...argv] = shellWords(step.run, step.env);
      expect(command).toBe('ralph-fleet');
      const parsed = parseFleetArgs(argv);
      if (argv[0] === 'sweep') {
        expect(parsed).toEqual({ kind: 'sweep', label: options.label, workflow: options.output.split('/').pop() });
        continue;
      }
      expect(parsed).toEqual({
        kind: 'job',
        issue: 42,
        label: options.label,
        agent: options.agent,
        jobMinutes: jobMinutesFor(options.timeoutMinutes),
        maxCostUsd: options.maxCostUsd,
        workflow: options.output.split('/').pop(),
        sandbox: options.sandbox,
      });
    }
  });
});
