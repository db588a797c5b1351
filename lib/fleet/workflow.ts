// The GitHub Actions workflow `ralph-fleet init` writes, built from its options as text (pure).
// One job per labelled issue: `issues: labeled` (only for the fleet's label) and
// `workflow_dispatch` with an `issue` input start it; with a schedule, a sweep job lists the
// labelled issues nobody works on and fans them out as a matrix. Each issue job installs ralph
// (pinned to the version that wrote the file) and the agent's CLI (pinned), runs ONE ralph
// command, `ralph-fleet job`, and always uploads the logs and the run record. Values from events
// reach the shell through `env:` only, never through `${{ }}` inside a script (script injection).

import type { FleetAgent } from './fleet-agents.js';

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
  /** ralph's npm package and version, installed by every job. */
  ralphPackage: string;
  /** The workflow's file name, which a job dispatches for its continuation. */
  workflowFile: string;
}

export const MAX_TIMEOUT_MINUTES = 360;
export const MIN_TIMEOUT_MINUTES = 10;

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
    `# Written by \`ralph-fleet init\` (${options.ralphPackage}). One job per issue labelled ${JSON.stringify(label)}:`,
    '# ralph works on branch ralph/issue-<n> and opens a pull request that closes the issue.',
    '# Re-run `ralph-fleet init --force` after upgrading ralph; edits here are kept in the backup it makes.',
    'name: ralph',
    // Quoted: a plain YAML value would end at the " #" (a comment); ralph-fleet finds an issue's runs by this name.
    'run-name: "${{ github.event_name == \'schedule\' && \'ralph sweep\' || format(\'ralph issue #{0}\', github.event.issue.number || inputs.issue) }}"',
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
    ...(schedule ? ['', ...sweepJob(options), '', ...issueJob(options, { id: 'swept', condition: "needs.sweep.outputs.issues != '[]'", issueExpr: 'matrix.issue', matrix: true })] : []),
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
      ? ['    strategy:', '      fail-fast: false', `      max-parallel: ${options.maxParallel}`, '      matrix:', '        issue: ${{ fromJSON(needs.sweep.outputs.issues) }}']
      : []),
    '    permissions:',
    '      contents: write',
    '      issues: write',
    '      pull-requests: write',
    '      # Only to dispatch this workflow again when a run outlasts one job.',
    '      actions: write',
    '    steps:',
    '      - uses: actions/checkout@v4',
    '        with:',
    '          fetch-depth: 0',
    '          # The token stays out of .git/config, where the agent could read it; ralph passes it to git itself.',
    '          persist-credentials: false',
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: 20',
    '      - name: Install ralph and the agent CLI',
    `        run: npm install -g ${options.ralphPackage} ${agent.npmPackage}`,
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
    '          # RALPH_GITHUB_TOKEN (optional): a token whose pushes and pull requests start CI; GITHUB_TOKEN\'s do not.',
    '          GH_TOKEN: ${{ secrets.RALPH_GITHUB_TOKEN || github.token }}',
    '          GH_REPO: ${{ github.repository }}',
    ...agent.secrets.map((name) => `          ${name}: \${{ secrets.${name} }}`),
    '      - name: Keep the logs and the run record',
    '        if: always()',
    '        uses: actions/upload-artifact@v4',
    '        with:',
    `          name: ralph-issue-\${{ ${shape.issueExpr} }}-\${{ github.run_id }}-\${{ github.run_attempt }}`,
    '          path: |',
    '            .ralph/logs/',
    '            .ralph/sessions/',
    '            .ralph/status.json',
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
    '      - uses: actions/setup-node@v4',
    '        with:',
    '          node-version: 20',
    '      - name: Install ralph',
    `        run: npm install -g ${options.ralphPackage}`,
    '      - name: List the issues to work on',
    '        id: list',
    `        run: ralph-fleet sweep --label "$RALPH_LABEL" --workflow ${options.workflowFile} >> "$GITHUB_OUTPUT"`,
    '        env:',
    `          RALPH_LABEL: ${JSON.stringify(options.label)}`,
    '          GH_TOKEN: ${{ github.token }}',
    '          GH_REPO: ${{ github.repository }}',
  ];
}

// A string literal in a GitHub expression: single quotes, doubled inside.
function yamlExprString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
