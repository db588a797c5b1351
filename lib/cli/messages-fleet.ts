// What `ralph-fleet` prints: its help (the flags below are the ones lib/cli/fleet.ts parses), and
// the three steps after `init`.

import type { FleetAgent } from '../fleet/fleet-agents.js';

export const FLEET_HELP = `ralph-fleet - Run ralph on GitHub Actions: one job per labelled issue

Usage: ralph-fleet <command> [options]

Commands:
  init                  Write .github/workflows/ralph.yml
      --output FILE     another file (an existing one only with --force)
      --force           replace an existing file (it is kept as FILE.bak-<time>)
      --label NAME      the label that starts a job (default: ralph)
      --agent NAME      claude, codex or gemini (default: claude)
      --runner LABEL    the runner (default: ubuntu-latest)
      --timeout-minutes N
                        the job's time limit, at most 360 (default: 360)
      --max-cost USD    the run's cost budget, all jobs (default 20; 0: none)
      --schedule CRON   also sweep the labelled issues on this schedule
      --max-parallel N  at most N swept issues at a time (default: 3)
      --no-sandbox      run the agent on the runner, not in a Docker sandbox
  job --issue N         Work on issue N (the workflow's step; see the README)
  sweep                 The labelled issues nobody works on (schedule's step)
  status [--json]       Each labelled open issue: state, run, pull request,
                        cost so far (as its last job reported it), last update
  start N [N...]        Label the issues (--dispatch: run the workflow)
  stop N                Cancel the issue's running job
  logs N                The latest logs into .ralph/fleet/N/, summarised

Options of status, start, stop, logs: --label NAME, --workflow FILE (ralph.yml)

Secrets: ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (claude), OPENAI_API_KEY
(codex), GEMINI_API_KEY (gemini); RALPH_GITHUB_TOKEN (optional): pushes and pull
requests that start CI.`;

/** After `init`: the README's three steps, with this file, this agent's secrets and this label. */
export function fleetInitNextSteps(file: string, agent: FleetAgent, label: string): string {
  return [
    'Next:',
    `  1. commit ${file}`,
    `  2. ${agent.secretHint}`,
    `     e.g. gh secret set ${agent.secrets[0]!}`,
    `  3. label an issue ${JSON.stringify(label)}, or run ralph-fleet start N`,
    'See the README, "Running on GitHub Actions".',
    '',
  ].join('\n');
}
