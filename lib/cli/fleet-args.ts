// The flags of `ralph-fleet <command>`, parsed into one command value (FLEET_HELP lists them).
// The workflow `init` writes runs `ralph-fleet job` and `ralph-fleet sweep` with these flags.

import { createParser } from './bootstrap-args.js';
import { wantsVersion } from './package-info.js';
import { RalphError } from '../errors.js';
import { DEFAULT_WORKFLOW_PATH } from '../fleet/init-workflow.js';
import type { FleetCommand, FleetJobArgs } from '../fleet/fleet-command.js';

export type { FleetCommand, FleetJobArgs };

const COMMANDS = ['init', 'job', 'sweep', 'status', 'start', 'stop', 'logs'] as const;
const DEFAULT_WORKFLOW = 'ralph.yml';

export function parseFleetArgs(argv: readonly string[]): FleetCommand | 'help' | 'version' {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h' || rest.includes('--help') || rest.includes('-h')) return 'help';
  if (wantsVersion(argv)) return 'version';
  if (!(COMMANDS as readonly string[]).includes(name)) throw usage(`Unknown command: ${name}`);
  const parser = createParser(rest, `ralph-fleet ${name}`)
    .parserConfiguration({ 'camel-case-expansion': false, 'duplicate-arguments-array': false })
    .option('label', { type: 'string', default: 'ralph' })
    .option('debug', { type: 'boolean' });
  switch (name) {
    case 'init': {
      const parsed = noPositionals(
        parser
          .option('output', { type: 'string', default: DEFAULT_WORKFLOW_PATH })
          .option('force', { type: 'boolean', default: false })
          .option('agent', { type: 'string', default: 'claude' })
          .option('runner', { type: 'string', default: 'ubuntu-latest' })
          .option('timeout-minutes', { type: 'string', default: '360' })
          .option('max-cost', { type: 'string', default: '20' })
          .option('schedule', { type: 'string' })
          .option('max-parallel', { type: 'string', default: '3' })
          .option('sandbox', { type: 'boolean', default: true })
          .parseSync(),
      );
      return {
        kind: 'init',
        output: text('--output', parsed.output),
        force: parsed.force,
        label: text('--label', parsed.label),
        agent: text('--agent', parsed.agent),
        runner: text('--runner', parsed.runner),
        timeoutMinutes: number('--timeout-minutes', parsed['timeout-minutes']),
        maxCostUsd: number('--max-cost', parsed['max-cost']),
        schedule: parsed.schedule === undefined ? undefined : text('--schedule', parsed.schedule),
        maxParallel: number('--max-parallel', parsed['max-parallel']),
        sandbox: parsed.sandbox,
      };
    }
    case 'job': {
      const parsed = noPositionals(
        parser
          .option('issue', { type: 'string', demandOption: 'ralph-fleet job needs --issue N' })
          .option('agent', { type: 'string', default: 'claude' })
          .option('job-minutes', { type: 'string', default: '340' })
          .option('max-cost', { type: 'string', default: '0' })
          .option('workflow', { type: 'string', default: DEFAULT_WORKFLOW })
          .option('sandbox', { type: 'boolean', default: true })
          .parseSync(),
      );
      const jobMinutes = number('--job-minutes', parsed['job-minutes']);
      if (!(jobMinutes > 0)) throw usage('--job-minutes must be more than 0');
      return {
        kind: 'job',
        issue: issueNumber(parsed.issue),
        label: text('--label', parsed.label),
        agent: text('--agent', parsed.agent),
        jobMinutes,
        maxCostUsd: number('--max-cost', parsed['max-cost']),
        workflow: text('--workflow', parsed.workflow),
        sandbox: parsed.sandbox,
      };
    }
    default: {
      const parsed = parser
        .option('workflow', { type: 'string', default: DEFAULT_WORKFLOW })
        .option('json', { type: 'boolean', default: false })
        .option('dispatch', { type: 'boolean', default: false })
        .parseSync();
      const common = { label: text('--label', parsed.label), workflow: text('--workflow', parsed.workflow) };
      const issues = (parsed._ as unknown[]).map((word) => issueNumber(String(word)));
      if (name === 'sweep') return { kind: 'sweep', ...common, ...none(issues) };
      if (name === 'status') return { kind: 'status', ...common, json: parsed.json, ...none(issues) };
      if (name === 'start') {
        if (issues.length === 0) throw usage('start takes one or more issue numbers');
        return { kind: 'start', ...common, issues, dispatch: parsed.dispatch };
      }
      if (issues.length !== 1) throw usage(`${name} takes one issue number`);
      return { kind: name as 'stop' | 'logs', ...common, issue: issues[0]! };
    }
  }
}

function none(issues: number[]): Record<string, never> {
  if (issues.length > 0) throw usage(`Unexpected argument: ${issues[0]}`);
  return {};
}

function noPositionals<T extends { _: unknown[] }>(parsed: T): T {
  if (parsed._.length > 0) throw usage(`Unexpected argument: ${String(parsed._[0])}`);
  return parsed;
}

function text(flag: string, value: unknown): string {
  const result = String(value ?? '').trim();
  if (result === '') throw usage(`${flag} requires a value`);
  return result;
}

function number(flag: string, value: unknown): number {
  const word = text(flag, value);
  const result = Number(word);
  if (!/^\d+(\.\d+)?$/.test(word) || !Number.isFinite(result)) throw usage(`${flag}: '${word}' is not a number`);
  return result;
}

function issueNumber(word: string): number {
  if (!/^#?[1-9]\d{0,9}$/.test(word.trim())) throw usage(`Invalid issue number: '${word}'`);
  return Number(word.trim().replace('#', ''));
}

export function usage(message: string): RalphError {
  return new RalphError('bad_flag', message, { hint: 'run ralph-fleet --help' });
}

