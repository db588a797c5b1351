// ralph-fleet's command table: for each subcommand, every row parsed (argv → the command), the
// generated error cases and --help naming every row (flag-table-suite.ts). And the workflow and
// the job agree: the `ralph-fleet job` and `ralph-fleet sweep` lines `init`
// writes, expanded as the runner's shell does with the step's env, parse into the options the
// workflow was made with (the label, agent, the job's time budget, cost budget, sandbox).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkFlagTable, parseError } from '../flag-table-suite.js';
import { FLEET_TABLE, parseFleetArgs, renderFleetHelp } from '../../../../lib/cli/fleet/fleet-args.js';
import { subcommandRows } from '../../../../lib/cli/flag-table.js';
import { resolveWorkflowOptions, type FleetInitOptions } from '../../../../lib/fleet/init-workflow.js';
import { buildWorkflow, FLEET_DEFAULTS, jobMinutesFor } from '../../../../lib/fleet/workflow.js';
import { CONFIG_SCHEMA } from '../../../../lib/config/schema.js';

const BASE: FleetInitOptions = {
  output: '.github/workflows/ralph.yml',
  force: false,
  label: 'ralph',
  agent: 'claude',
  runner: 'ubuntu-latest',
  timeoutMinutes: 360,
  maxCostUsd: 20,
  maxParallel: 3,
  sandbox: true,
  schedule: '0 * * * *',
  allowWorkflowChanges: false,
};
const PINS = { ralph: { version: '0.12.0', path: '.github/ralph/ralph-claude-code-0.12.0.tgz', sha256: 'ab'.repeat(32) }, agentIntegrity: 'sha512-AAAA' };

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
    const text = buildWorkflow(resolveWorkflowOptions(options, PINS));
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
        allowWorkflowChanges: false,
      });
    }
  });
});

const help = renderFleetHelp();
const shared = (name: string, ...issues: string[]): Record<string, [string[], unknown]> => ({
  label: [[name, ...issues, '--label', 'fleet: go'], { label: 'fleet: go' }],
  workflow: [[name, ...issues, '--workflow', 'agents.yml'], { workflow: 'agents.yml' }],
});
const always = (name: string): Record<string, [string[], unknown]> => ({
  help: [[name, '--help'], 'help'],
  version: [[name, '--version'], 'version'],
  debug: [[name, ...(name === 'job' ? ['--issue', '1'] : name === 'start' || name === 'stop' || name === 'logs' ? ['1'] : []), '--debug'], { kind: name }],
});

const CASES: Record<string, Record<string, [string[], unknown]>> = {
  init: {
    output: [
      ['init', '--output', 'ci/r.yml'],
      {
        kind: 'init',
        output: 'ci/r.yml',
        label: 'ralph',
        agent: 'claude',
        runner: 'ubuntu-latest',
        timeoutMinutes: 360,
        maxCostUsd: 20,
        maxParallel: 3,
        sandbox: true,
        allowWorkflowChanges: false,
        yes: false,
      },
    ],
    force: [['init', '--force'], { force: true }],
    label: [['init', '--label', 'go'], { label: 'go' }],
    agent: [['init', '--agent', 'codex'], { agent: 'codex' }],
    runner: [['init', '--runner', 'self-hosted'], { runner: 'self-hosted' }],
    'timeout-minutes': [['init', '--timeout-minutes', '90'], { timeoutMinutes: 90 }],
    'max-cost': [['init', '--max-cost', '2.5'], { maxCostUsd: 2.5 }],
    schedule: [['init', '--schedule', '0 * * * *'], { schedule: '0 * * * *' }],
    'max-parallel': [['init', '--max-parallel', '2'], { maxParallel: 2 }],
    sandbox: [['init', '--no-sandbox'], { sandbox: false }],
    'allow-workflow-changes': [['init', '--allow-workflow-changes'], { allowWorkflowChanges: true }],
    yes: [['init', '--yes'], { yes: true }],
  },
  doctor: {
    agent: [['doctor', '--agent', 'codex'], { kind: 'doctor', agent: 'codex', label: 'ralph', workflow: 'ralph.yml', yes: false }],
    yes: [['doctor', '--yes'], { yes: true }],
    ...shared('doctor'),
  },
  job: {
    issue: [
      ['job', '--issue', '#7'],
      {
        kind: 'job',
        issue: 7,
        label: 'ralph',
        agent: 'claude',
        jobMinutes: 340,
        maxCostUsd: 0,
        workflow: 'ralph.yml',
        sandbox: true,
        allowWorkflowChanges: false,
      },
    ],
    agent: [['job', '--issue', '7', '--agent', 'gemini'], { agent: 'gemini' }],
    'job-minutes': [['job', '--issue', '7', '--job-minutes', '45'], { jobMinutes: 45 }],
    'max-cost': [['job', '--issue', '7', '--max-cost', '3'], { maxCostUsd: 3 }],
    sandbox: [['job', '--issue', '7', '--no-sandbox'], { sandbox: false }],
    'allow-workflow-changes': [['job', '--issue', '7', '--allow-workflow-changes'], { allowWorkflowChanges: true }],
    ...shared('job', '--issue', '7'),
  },
  sweep: shared('sweep'),
  status: { json: [['status', '--json'], { kind: 'status', json: true }], ...shared('status') },
  start: { dispatch: [['start', '4', '5', '--dispatch'], { kind: 'start', issues: [4, 5], dispatch: true }], ...shared('start', '4') },
  stop: shared('stop', '4'),
  logs: shared('logs', '4'),
};

describe('the defaults of ralph-fleet flags', () => {
  it("are the workflow's, the schema's and the job budget init writes, from where each is decided", () => {
    expect(parseFleetArgs(['init'])).toMatchObject({ ...FLEET_DEFAULTS, agent: CONFIG_SCHEMA.AGENT_PROVIDER.default, output: '.github/workflows/ralph.yml' });
    expect(parseFleetArgs(['job', '--issue', '1'])).toMatchObject({
      agent: CONFIG_SCHEMA.AGENT_PROVIDER.default,
      label: FLEET_DEFAULTS.label,
      jobMinutes: jobMinutesFor(FLEET_DEFAULTS.timeoutMinutes),
      maxCostUsd: CONFIG_SCHEMA.MAX_COST_USD.default,
      workflow: 'ralph.yml',
    });
  });
});

describe('the ralph-fleet command table', () => {
  it('has cases for every subcommand', () => {
    expect(Object.keys(CASES).sort()).toEqual(FLEET_TABLE.subcommands.map((sub) => sub.name).sort());
  });

  for (const sub of FLEET_TABLE.subcommands) {
    describe(`ralph-fleet ${sub.name}`, () => {
      checkFlagTable({
        rows: subcommandRows(FLEET_TABLE, sub.name),
        prefix: sub.name === 'job' ? ['job', '--issue', '7'] : ['start', 'stop', 'logs'].includes(sub.name) ? [sub.name, '4'] : [sub.name],
        parse: parseFleetArgs,
        help,
        cases: { ...CASES[sub.name], ...always(sub.name) },
      });
    });
  }

  it('points job to the page that says what a job does (the README has no such section)', () => {
    expect(help).toMatch(/^ {2}job --issue N +Work on issue N \(the workflow's step; see docs\/fleet\.md\)$/m);
    expect(readFileSync(new URL('../../../../docs/fleet.md', import.meta.url), 'utf8')).toContain('## What a job does');
  });

  it('lists every subcommand in --help', () => {
    for (const sub of FLEET_TABLE.subcommands) expect(help).toMatch(new RegExp(`^  ${sub.name}\\b`, 'm'));
  });

  it.each([
    [['job'], 'ralph-fleet job needs --issue N'],
    [['job', '--issue', 'x'], "Invalid issue number: 'x'"],
    [['job', '--issue', '7', '--job-minutes', '0'], '--job-minutes must be more than 0'],
    [['init', '--max-cost', 'lots'], "--max-cost: 'lots' is not a number"],
    [['init', '--bogus'], 'Unknown option: --bogus'],
    [['init', 'extra'], 'Unexpected argument: extra'],
    [['stop', '--json'], 'Unknown option: --json'],
    [['start'], 'start takes one or more issue numbers'],
    [['logs', '1', '2'], 'logs takes one issue number'],
    [['deploy'], 'Unknown command: deploy'],
  ])('ralph-fleet %j: %s', (argv, message) => {
    expect(parseError(parseFleetArgs, argv)).toBe(message);
  });
});
