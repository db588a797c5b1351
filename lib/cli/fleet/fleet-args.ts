// ralph-fleet's command table: each subcommand with its flags as rows (flag-table.ts), from which
// parsing, checks, errors and --help come. The workflow `init` writes runs `ralph-fleet job` and
// `ralph-fleet sweep` with these flags (tests/unit/cli/fleet-args.test.ts).

import { basename } from 'node:path';
import { CONFIG_SCHEMA } from '../../config/schema.js';
import { RalphError } from '../../errors.js';
import { DEFAULT_WORKFLOW_PATH } from '../../fleet/init-workflow.js';
import type { FleetCommand, FleetJobArgs } from '../../fleet/fleet-command.js';
import { FLEET_DEFAULTS, jobMinutesFor, MAX_TIMEOUT_MINUTES } from '../../fleet/workflow.js';
import { DEBUG_ROW, HELP_ROW, parseSubcommand, renderSubcommandHelp, VERSION_ROW, type FlagRow, type SubcommandTable } from '../flag-table.js';

// Every default below is read from where it is decided: the workflow's (fleet/workflow.ts), the
// agent's and the job's cost budget (the config schema), the workflow file's name (init-workflow.ts).
const DEFAULT_WORKFLOW = basename(DEFAULT_WORKFLOW_PATH);
const DEFAULT_AGENT = String(CONFIG_SCHEMA.AGENT_PROVIDER.default);

export type { FleetCommand, FleetJobArgs };

const notANumber = (flag: string) => (raw: string) => `${flag}: '${raw.trim()}' is not a number`;
/** A number flag: digits and an optional fraction; its bounds are checked where the option is used. */
const numberRow = (name: string, arg: string, value: number, describe: string): FlagRow => ({
  name,
  arg,
  kind: 'number',
  default: value,
  invalid: notANumber(`--${name}`),
  describe,
});
const issueCheck = (value: string) => (/^#?[1-9]\d{0,9}$/.test(value.trim()) ? undefined : { message: `Invalid issue number: '${value}'` });

const SANDBOX: FlagRow = { name: 'sandbox', default: true, describe: 'run the agent on the runner, not in a Docker sandbox' };
const AGENT: FlagRow = { name: 'agent', arg: 'NAME', default: DEFAULT_AGENT, describe: 'claude, codex or gemini' };
const LABEL: FlagRow = { name: 'label', arg: 'NAME', default: FLEET_DEFAULTS.label, describe: 'the label that starts a job' };
const WORKFLOW: FlagRow = { name: 'workflow', arg: 'FILE', default: DEFAULT_WORKFLOW, describe: 'the workflow file name' };

export const FLEET_TABLE: SubcommandTable = {
  command: 'ralph-fleet',
  subcommands: [
    {
      name: 'init',
      describe: 'Write .github/workflows/ralph.yml',
      rows: [
        { name: 'output', arg: 'FILE', default: DEFAULT_WORKFLOW_PATH, describe: 'another file (an existing one only with --force)' },
        { name: 'force', describe: 'replace an existing file (it is kept as FILE.bak-<time>)' },
        LABEL,
        AGENT,
        { name: 'runner', arg: 'LABEL', default: FLEET_DEFAULTS.runner, describe: 'the runner' },
        numberRow('timeout-minutes', 'N', FLEET_DEFAULTS.timeoutMinutes, `the job's time limit, at most ${MAX_TIMEOUT_MINUTES}`),
        numberRow('max-cost', 'USD', FLEET_DEFAULTS.maxCostUsd, "the run's cost budget, all jobs (0: none)"),
        { name: 'schedule', arg: 'CRON', describe: 'also sweep the labelled issues on this schedule' },
        numberRow('max-parallel', 'N', FLEET_DEFAULTS.maxParallel, 'at most N swept issues at a time'),
        SANDBOX,
        { name: 'allow-workflow-changes', describe: "push the agent's changes under .github/ too (off: they are held back and listed on the issue)" },
        { name: 'yes', describe: 'create the missing labels without asking' },
        DEBUG_ROW,
      ],
    },
    {
      name: 'doctor',
      describe: 'Check everything a first job needs, each failing check with the command that fixes it',
      rows: [AGENT, { name: 'yes', describe: 'create the missing labels without asking' }, DEBUG_ROW],
    },
    {
      name: 'job',
      args: '--issue N',
      describe: "Work on issue N (the workflow's step; see docs/fleet.md)",
      rows: [
        { name: 'issue', arg: 'N', check: issueCheck, describe: 'the issue (required)' },
        AGENT,
        numberRow('job-minutes', 'N', jobMinutesFor(FLEET_DEFAULTS.timeoutMinutes), "the job's time budget, more than 0"),
        numberRow('max-cost', 'USD', Number(CONFIG_SCHEMA.MAX_COST_USD.default), "the run's cost budget (0: none)"),
        SANDBOX,
        { name: 'allow-workflow-changes', describe: "push the agent's changes under .github/ (init --allow-workflow-changes)" },
        DEBUG_ROW,
      ],
    },
    { name: 'sweep', describe: "The labelled issues nobody works on (schedule's step)", rows: [DEBUG_ROW] },
    {
      name: 'status',
      args: '[--json]',
      describe: 'Each labelled open issue: state, run, pull request, cost so far (as its last job reported it), last update',
      rows: [{ name: 'json', describe: 'as JSON' }, DEBUG_ROW],
    },
    { name: 'start', args: 'N [N...]', describe: 'Label the issues', rows: [{ name: 'dispatch', describe: 'also run the workflow' }, DEBUG_ROW] },
    { name: 'stop', args: 'N', describe: "Cancel the issue's running job", rows: [DEBUG_ROW] },
    { name: 'logs', args: 'N', describe: 'The latest logs into .ralph/fleet/N/, summarised', rows: [DEBUG_ROW] },
  ],
  shared: {
    title: 'Options of doctor, job, sweep, status, start, stop, logs',
    rows: [LABEL, WORKFLOW],
    for: ['doctor', 'job', 'sweep', 'status', 'start', 'stop', 'logs'],
  },
  rows: [HELP_ROW, VERSION_ROW],
  fail: (problem) => usage(problem.message),
};

export function parseFleetArgs(argv: readonly string[]): FleetCommand | 'help' | 'version' {
  const parsed = parseSubcommand(argv, FLEET_TABLE);
  if (parsed === 'help' || parsed === 'version') return parsed;
  const { name, values, given, positional } = parsed;
  const text = (flag: string) => values[flag] as string;
  const number = (flag: string) => values[flag] as number;
  if (name === 'init' || name === 'job' || name === 'doctor') none(positional);
  switch (name) {
    case 'init':
      return {
        kind: 'init',
        output: text('output'),
        force: Boolean(values.force),
        label: text('label'),
        agent: text('agent'),
        runner: text('runner'),
        timeoutMinutes: number('timeout-minutes'),
        maxCostUsd: number('max-cost'),
        schedule: values.schedule as string | undefined,
        maxParallel: number('max-parallel'),
        sandbox: Boolean(values.sandbox),
        allowWorkflowChanges: Boolean(values['allow-workflow-changes']),
        yes: Boolean(values.yes),
      };
    case 'doctor':
      return { kind: 'doctor', agent: text('agent'), label: text('label'), workflow: text('workflow'), yes: Boolean(values.yes) };
    case 'job': {
      if (!given.has('issue')) throw usage('ralph-fleet job needs --issue N');
      if (!(number('job-minutes') > 0)) throw usage('--job-minutes must be more than 0');
      return {
        kind: 'job',
        issue: issueNumber(text('issue')),
        label: text('label'),
        agent: text('agent'),
        jobMinutes: number('job-minutes'),
        maxCostUsd: number('max-cost'),
        workflow: text('workflow'),
        sandbox: Boolean(values.sandbox),
        allowWorkflowChanges: Boolean(values['allow-workflow-changes']),
      };
    }
    default: {
      const common = { label: text('label'), workflow: text('workflow') };
      const issues = positional.map(issueNumber);
      if (name === 'sweep') return { kind: 'sweep', ...common, ...none(positional) };
      if (name === 'status') return { kind: 'status', ...common, json: Boolean(values.json), ...none(positional) };
      if (name === 'start') {
        if (issues.length === 0) throw usage('start takes one or more issue numbers');
        return { kind: 'start', ...common, issues, dispatch: Boolean(values.dispatch) };
      }
      if (issues.length !== 1) throw usage(`${name} takes one issue number`);
      return { kind: name as 'stop' | 'logs', ...common, issue: issues[0]! };
    }
  }
}

function none(positional: string[]): Record<string, never> {
  if (positional.length > 0) throw usage(`Unexpected argument: ${positional[0]}`);
  return {};
}

function issueNumber(word: string): number {
  const problem = issueCheck(word);
  if (problem) throw usage(problem.message);
  return Number(word.trim().replace('#', ''));
}

export function usage(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: 'run ralph-fleet --help' });
}

export function renderFleetHelp(): string {
  return renderSubcommandHelp(FLEET_TABLE, {
    column: 24,
    header: 'ralph-fleet - Run ralph on GitHub Actions: one job per labelled issue\n\nUsage: ralph-fleet <command> [options]',
    footer: `Secrets: ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (claude), OPENAI_API_KEY
(codex), GEMINI_API_KEY (gemini); RALPH_GITHUB_TOKEN (optional): pushes and pull
requests that start CI.`,
  });
}
