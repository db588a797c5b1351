// The workflow `ralph-fleet init` writes and the job together: the file's own steps run here as
// a runner would run them (tests/helpers/workflow-runner.ts: `uses:` steps skipped, `${{ }}`
// evaluated with GitHub's @actions/expressions), with fake npm, gh and agent on PATH and
// `ralph-fleet` from this checkout. A label event runs the issue's job to its pull request; a
// label that is not the fleet's runs nothing; the schedule's sweep lists the issue and its
// matrix job works on it.

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_AGENT_INTEGRITY, FLEET_ISSUE, fleetInitEnv, useFleetFixtures, type FleetRepo } from '../../helpers/fleet-repo.js';
import { binPath, REPO_ROOT } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';
import { runWorkflow, type WorkflowEvent, type WorkflowRun } from '../../helpers/workflow-runner.js';
import { ACTION_PINS } from '../../../lib/fleet/action-pins.js';
import { FLEET_AGENTS } from '../../../lib/fleet/fleet-agents.js';
import { issueOfRun } from '../../../lib/fleet/job-gh.js';
import { initWorkflow } from '../../../lib/fleet/init-workflow.js';
import { parseFleetArgs } from '../../../lib/cli/fleet/fleet-args.js';
import { nodeProcessRunner } from '../../../lib/platform/process.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const fixtures = useFleetFixtures();

/** A project with the workflow and the package `init` wrote pushed to main, and a runner's PATH of fakes. */
async function setUp(initArgs: string[], rc = ''): Promise<{ r: FleetRepo; workflow: string; env: NodeJS.ProcessEnv; npmLog: string }> {
  const { repo: r, claude } = fixtures(
    { calls: [{ resultText: 'Added it.', tickFixPlan: 'all', costUsd: 0.5, writeFiles: { 'work.txt': 'work\n' } }] },
    {
      rc,
      gh: {
        issues: [FLEET_ISSUE],
        permissions: { owner: 'admin' },
        timeline: { 7: [{ event: 'labeled', actor: { login: 'owner' }, label: { name: 'ralph' } }] },
      },
    },
  );
  const project = r.cloneJob();
  // What `ralph-fleet init` writes, in this process (its command line is fleet-init.test.ts's).
  const init = parseFleetArgs(['init', ...initArgs]);
  if (typeof init === 'string' || init.kind !== 'init') throw new Error(`not an init command: ${initArgs.join(' ')}`);
  await initWorkflow(init, { projectDir: project, packageRoot: REPO_ROOT, runner: nodeProcessRunner, env: fleetInitEnv(r), now: Date.now() });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, env: { ...process.env, ...GIT_TEST_ENV } });
  git('add', '.github');
  git('commit', '-qm', 'Add the ralph fleet');
  git('push', '-q', 'origin', 'HEAD:main');
  const npmLog = join(r.root, 'npm.log');
  // The install step's npm records what it was asked and answers `view` as the registry would;
  // ralph-fleet is this checkout's.
  writeExecutable(join(r.ghBinDir, 'npm'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${npmLog}'\n[ "$1" = view ] && echo '${FAKE_AGENT_INTEGRITY}'\nexit 0\n`);
  for (const bin of ['ralph', 'ralph-fleet']) writeExecutable(join(r.ghBinDir, bin), `#!/bin/sh\nexec '${process.execPath}' '${binPath(bin)}' "$@"\n`);
  const env = { ...process.env, ...claude.env, ...r.ghEnv, NO_COLOR: '1', PATH: [r.ghBinDir, claude.env.PATH].join(delimiter) };
  return { r, workflow: join(project, '.github', 'workflows', 'ralph.yml'), env, npmLog };
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

function run(r: FleetRepo, workflow: string, env: NodeJS.ProcessEnv, event: WorkflowEvent): Promise<WorkflowRun> {
  return runWorkflow(workflow, { event, env, secrets: { ANTHROPIC_API_KEY: 'sk-ant-test' }, scratchDir: r.root, checkout: () => r.cloneJob() });
}

const labelled = (label: string): WorkflowEvent => ({
  name: 'issues',
  payload: { action: 'labeled', label: { name: label }, sender: { login: 'owner' }, issue: { number: 7 } },
});

function prCreated(r: FleetRepo): boolean {
  return r.ghCalls().some((c) => c.argv[0] === 'pr' && c.argv[1] === 'create');
}

describe("the generated workflow's own steps, run locally", () => {
  it('a label event: the issue job installs the pinned packages, then ralph-fleet job takes the issue to a pull request', async () => {
    const { r, workflow, env, npmLog } = await setUp(['--no-sandbox']);
    const result = await run(r, workflow, env, labelled('ralph'));
    // ralph-fleet finds the issue's runs by the run's name.
    expect(issueOfRun({ displayTitle: result.runName })).toBe(7);
    expect(result.jobs.map((job) => [job.id, job.concurrencyGroup])).toEqual([['issue', 'ralph-issue-7']]);
    const [job] = result.jobs;
    expect(job!.skipped).toEqual([ACTION_PINS.checkout, ACTION_PINS.setupNode, ACTION_PINS.uploadArtifact].map((pin) => `${pin.repo}@${pin.commit}`));
    for (const step of job!.steps) expect(step.code, `${step.name}: ${step.stderr}`).toBe(0);
    // No event value reaches a script but through env (script injection).
    expect(readFileSync(workflow, 'utf8')).not.toMatch(/run: .*\$\{\{/);
    expect(job!.steps.map((step) => step.name)).toEqual(['Install ralph and the agent CLI', 'Work on the issue']);
    const claude = FLEET_AGENTS.find((a) => a.name === 'claude')!.npmPackage;
    expect(readFileSync(npmLog, 'utf8')).toBe(
      [
        `install --global --offline --ignore-scripts --no-audit --no-fund ./.github/ralph/ralph-claude-code-${VERSION}.tgz`,
        `view ${claude} dist.integrity`,
        `install --global --no-audit --no-fund ${claude}`,
        '',
      ].join('\n'),
    );
    expect(job!.steps[1]!.env).toMatchObject({
      RALPH_ISSUE: '7',
      RALPH_LABEL: 'ralph',
      GH_TOKEN: 'ghs_fake_workflow_token',
      GH_REPO: 'fake/repo',
      ANTHROPIC_API_KEY: 'sk-ant-test',
    });
    expect(execFileSync('git', ['--git-dir', r.origin, 'show', 'ralph/issue-7:work.txt'], { encoding: 'utf8' })).toBe('work\n');
    expect(prCreated(r)).toBe(true);
    expect(r.ghCalls().some((c) => c.argv.join(' ') === 'issue edit 7 --add-label ralph-done')).toBe(true);
  }, 120_000);

  it("with the sandbox: the image is built by ralph's own command, under the name the project's .ralphrc gives", async () => {
    const { r, workflow, env } = await setUp([], 'SANDBOX_DOCKER_IMAGE="acme/ralph-sandbox:1"\n');
    // docker builds (and records what); the job's own docker calls then fail, which is not this test's concern.
    const dockerLog = join(r.root, 'docker.log');
    writeExecutable(
      join(r.ghBinDir, 'docker'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${dockerLog}'\n[ "$1" = build ] && exit 0\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n`,
    );
    const result = await run(r, workflow, env, labelled('ralph'));
    const steps = result.jobs[0]!.steps;
    expect(steps.slice(0, 2).map((step) => [step.name, step.script, step.code])).toEqual([
      ['Install ralph and the agent CLI', expect.stringMatching(/sha256sum --check --strict\n/), 0],
      ['Build the sandbox image', 'ralph --sandbox-build', 0],
    ]);
    expect(readFileSync(dockerLog, 'utf8').split('\n')[0]).toMatch(/^build --tag acme\/ralph-sandbox:1 --file .+\/Dockerfile /);
  }, 120_000);

  it('a package that is not the one init wrote: the install step fails at its checksum and nothing is installed or run', async () => {
    const { r, workflow, env, npmLog } = await setUp(['--no-sandbox']);
    const result = await runWorkflow(workflow, {
      event: labelled('ralph'),
      env,
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-test' },
      scratchDir: r.root,
      checkout: () => {
        const dir = r.cloneJob();
        writeFileSync(join(dir, `.github/ralph/ralph-claude-code-${VERSION}.tgz`), 'not the package\n');
        return dir;
      },
    });
    const steps = result.jobs[0]!.steps;
    expect(steps.map((step) => [step.name, step.code === 0])).toEqual([['Install ralph and the agent CLI', false]]);
    expect(steps[0]!.stdout + steps[0]!.stderr).toContain('FAILED');
    expect(existsSync(npmLog)).toBe(false);
    expect(r.ghCalls()).toEqual([]);
  }, 120_000);

  it("another label: the issue job's condition is false and nothing runs", async () => {
    const { r, workflow, env, npmLog } = await setUp(['--no-sandbox', '--label', 'fleet: go']);
    const result = await run(r, workflow, env, labelled('bug'));
    expect(result.jobs).toEqual([]);
    expect(result.skippedJobs).toEqual(['issue']);
    expect(r.ghCalls()).toEqual([]);
    expect(() => readFileSync(npmLog)).toThrow();
  }, 60_000);

  it('the schedule: the sweep lists the labelled issue nobody works on and the matrix job works on it', async () => {
    const { r, workflow, env } = await setUp(['--no-sandbox', '--schedule', '0 */6 * * *', '--max-parallel', '2']);
    const result = await run(r, workflow, env, { name: 'schedule', payload: { schedule: '0 */6 * * *' } });
    expect(result.runName).toBe('ralph sweep');
    expect(result.skippedJobs).toEqual(['issue']);
    expect(result.jobs.map((job) => [job.id, job.matrix, job.outputs])).toEqual([
      ['sweep', {}, { issues: '[7]' }],
      ['swept', { issue: 7 }, {}],
    ]);
    expect(result.jobs[1]!.concurrencyGroup).toBe('ralph-issue-7');
    // Named as an issue's run is, so that ralph-fleet status, stop and the next sweep find it.
    expect(issueOfRun({ displayTitle: result.jobs[1]!.name })).toBe(7);
    for (const step of result.jobs.flatMap((job) => job.steps)) expect(step.code, `${step.name}: ${step.stderr}`).toBe(0);
    expect(prCreated(r)).toBe(true);
  }, 120_000);

  it('a dispatch (a continuation, or ralph-fleet start): the issue comes from the input', async () => {
    const { r, workflow, env } = await setUp(['--no-sandbox']);
    const result = await run(r, workflow, env, { name: 'workflow_dispatch', payload: { inputs: { issue: '7' } } });
    expect(result.runName).toBe('ralph issue #7');
    expect(result.jobs.map((job) => [job.id, job.concurrencyGroup, job.steps.map((step) => step.code)])).toEqual([['issue', 'ralph-issue-7', [0, 0]]]);
    expect(prCreated(r)).toBe(true);
  }, 120_000);
});
