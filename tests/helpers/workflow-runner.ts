// runWorkflow(): the generated GitHub Actions workflow run on this machine as a runner would run
// it, for one event: the file parsed as YAML, each job's `if:` and each `${{ }}` evaluated with
// GitHub's own expression library (@actions/expressions), jobs in the order of their `needs`, a
// matrix fanned out, `uses:` steps skipped (checkout, setup-node and the artifact upload are
// GitHub's), and every `run:` step run by bash as the runner runs it (`bash --noprofile --norc
// -eo pipefail`) with the step's env, GITHUB_EVENT_NAME/GITHUB_EVENT_PATH and GITHUB_OUTPUT.
// The caller puts the fakes (npm, gh, the agent, a `ralph-fleet` that runs this checkout) on
// PATH and gives each job run its checkout.

import * as actionsExpressions from '@actions/expressions';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

type ExprData = actionsExpressions.data.ExpressionData;
/** A function the expressions may call (the library does not export its type). */
type ExprFunction = ConstructorParameters<typeof actionsExpressions.Parser>[2][number] & { call: (...args: ExprData[]) => ExprData };

export interface WorkflowEvent {
  name: 'issues' | 'workflow_dispatch' | 'schedule';
  /** The event's payload, as GitHub writes it at GITHUB_EVENT_PATH. */
  payload: Record<string, unknown>;
}

export interface RunWorkflowOptions {
  event: WorkflowEvent;
  secrets: Record<string, string>;
  /** The runner's own environment (PATH with the fakes first, the fakes' settings). */
  env: NodeJS.ProcessEnv;
  /** A folder for the event file and the step output files. */
  scratchDir: string;
  /** The checkout a job run works in (actions/checkout's, which is skipped). */
  checkout(jobId: string, matrix: Record<string, unknown>): string;
}

export interface StepRun {
  name: string;
  /** The script as the step's shell got it. */
  script: string;
  env: Record<string, string>;
  code: number;
  stdout: string;
  stderr: string;
}

export interface JobRun {
  id: string;
  /** The job's `name:` as GitHub shows it ('' when it has none). */
  name: string;
  matrix: Record<string, unknown>;
  concurrencyGroup: string;
  /** The `uses:` steps, skipped. */
  skipped: string[];
  steps: StepRun[];
  outputs: Record<string, string>;
}

export interface WorkflowRun {
  runName: string;
  /** Jobs whose `if:` was false. */
  skippedJobs: string[];
  jobs: JobRun[];
}

interface Workflow {
  'run-name'?: string;
  jobs: Record<string, JobSpec>;
}
interface JobSpec {
  name?: string;
  needs?: string | string[];
  if?: string;
  concurrency?: { group: string };
  strategy?: { matrix: Record<string, unknown> };
  outputs?: Record<string, string>;
  steps: Array<{ name?: string; id?: string; uses?: string; run?: string; env?: Record<string, unknown> }>;
}

const CONTEXTS = ['github', 'inputs', 'secrets', 'needs', 'matrix', 'steps', 'env', 'runner', 'job', 'strategy', 'vars'];

export async function runWorkflow(file: string, options: RunWorkflowOptions): Promise<WorkflowRun> {
  const workflow = parseYaml(readFileSync(file, 'utf8')) as Workflow;
  const evaluate = evaluator();
  const eventPath = join(options.scratchDir, 'event.json');
  writeFileSync(eventPath, JSON.stringify(options.event.payload));
  const github = {
    event_name: options.event.name,
    event: options.event.payload,
    token: 'ghs_fake_workflow_token',
    repository: 'fake/repo',
    run_id: '9001',
    run_attempt: '1',
  };
  const base = { github, inputs: (options.event.payload.inputs as Record<string, unknown> | undefined) ?? {}, secrets: options.secrets };
  const needs: Record<string, { outputs: Record<string, string>; result: string }> = {};
  const run: WorkflowRun = {
    runName: String(workflow['run-name'] === undefined ? '' : template(evaluate, workflow['run-name'], base)),
    skippedJobs: [],
    jobs: [],
  };

  for (const [id, job] of orderByNeeds(workflow.jobs)) {
    const context = { ...base, needs };
    if (job.if !== undefined && !truthy(template(evaluate, job.if, context))) {
      run.skippedJobs.push(id);
      needs[id] = { outputs: {}, result: 'skipped' };
      continue;
    }
    const matrixValues = job.strategy ? expandMatrix(job.strategy.matrix, (value) => template(evaluate, value, context)) : [{}];
    let outputs: Record<string, string> = {};
    for (const matrix of matrixValues) {
      const jobRun = await runJob(id, job, { ...context, matrix }, evaluate, options, eventPath);
      run.jobs.push(jobRun);
      outputs = jobRun.outputs;
      if (jobRun.steps.some((step) => step.code !== 0)) break;
    }
    needs[id] = { outputs, result: 'success' };
  }
  return run;
}

async function runJob(
  id: string,
  job: JobSpec,
  context: Record<string, unknown>,
  evaluate: Evaluate,
  options: RunWorkflowOptions,
  eventPath: string,
): Promise<JobRun> {
  const matrix = context.matrix as Record<string, unknown>;
  const cwd = options.checkout(id, matrix);
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  const name = job.name === undefined ? '' : String(template(evaluate, job.name, context));
  const result: JobRun = {
    id,
    name,
    matrix,
    concurrencyGroup: job.concurrency ? String(template(evaluate, job.concurrency.group, context)) : '',
    skipped: [],
    steps: [],
    outputs: {},
  };
  for (const [index, step] of job.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${index + 1}`;
    if (step.uses !== undefined) {
      result.skipped.push(step.uses);
      continue;
    }
    const stepContext = { ...context, steps };
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, String(template(evaluate, String(value), stepContext))]));
    const script = String(template(evaluate, step.run ?? '', stepContext));
    const outputFile = join(options.scratchDir, `output-${id}-${index}-${Date.now()}`);
    writeFileSync(outputFile, '');
    const ran = await bash(script, cwd, {
      ...options.env,
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: String((context.github as { event_name: string }).event_name),
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_RUN_ID: '9001',
      GITHUB_OUTPUT: outputFile,
      ...env,
    });
    result.steps.push({ name, script, env, ...ran });
    if (step.id !== undefined) steps[step.id] = { outputs: readOutputs(outputFile) };
    if (ran.code !== 0) return result;
  }
  result.outputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([key, value]) => [key, String(template(evaluate, value, { ...context, steps }))]));
  return result;
}

type Evaluate = (expression: string, context: Record<string, unknown>) => unknown;

function evaluator(): Evaluate {
  const { Lexer, Parser, Evaluator, data } = actionsExpressions;
  // The job-status functions; the steps evaluated here run while the job succeeds.
  const status: ExprFunction[] = Object.entries({ success: true, always: true, failure: false, cancelled: false }).map(([name, value]) => ({
    name,
    minArgs: 0,
    maxArgs: 0,
    call: () => new data.BooleanData(value),
  }));
  return (expression, context) => {
    const parsed = new Parser(new Lexer(expression).lex().tokens, CONTEXTS, status).parse();
    const input = JSON.parse(JSON.stringify(context), data.reviver) as actionsExpressions.data.Dictionary;
    const value = new Evaluator(parsed, input, new Map(status.map((f) => [f.name, f]))).evaluate();
    return JSON.parse(JSON.stringify(value, data.replacer)) as unknown;
  };
}

/** A value with `${{ }}` in it: one whole expression gives its value, else each is put in as a string. */
function template(evaluate: Evaluate, text: string, context: Record<string, unknown>): unknown {
  const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(text);
  if (whole) return evaluate(whole[1]!, context);
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_all, expression: string) => asString(evaluate(expression, context)));
}

// GitHub's string of a value: null is '', numbers and booleans as written, objects as JSON.
function asString(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
}

function truthy(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== 0 && value !== '';
}

function expandMatrix(matrix: Record<string, unknown>, evaluate: (value: string) => unknown): Array<Record<string, unknown>> {
  let combinations: Array<Record<string, unknown>> = [{}];
  for (const [key, raw] of Object.entries(matrix)) {
    const values = typeof raw === 'string' ? evaluate(raw) : raw;
    if (!Array.isArray(values)) throw new Error(`matrix.${key} is not a list: ${JSON.stringify(values)}`);
    combinations = combinations.flatMap((combination) => values.map((value: unknown) => ({ ...combination, [key]: value })));
  }
  return combinations;
}

function orderByNeeds(jobs: Record<string, JobSpec>): Array<[string, JobSpec]> {
  const ordered: Array<[string, JobSpec]> = [];
  const placed = new Set<string>();
  while (ordered.length < Object.keys(jobs).length) {
    const ready = Object.entries(jobs).filter(([id, job]) => !placed.has(id) && [job.needs ?? []].flat().every((need) => placed.has(need)));
    if (ready.length === 0) throw new Error('the jobs need each other in a cycle');
    for (const [id, job] of ready) {
      ordered.push([id, job]);
      placed.add(id);
    }
  }
  return ordered;
}

function readOutputs(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([\w-]+)=(.*)$/.exec(line);
    if (match) outputs[match[1]!] = match[2]!;
  }
  return outputs;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
