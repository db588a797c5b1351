// Shared set-up of the `ralph --parallel` end-to-end tests: a git project with a plan, the fake
// `claude` scripted per unit (matched on the item named in the unit's prompt), and readers for
// what the tests assert: the run branch's log and plan, branches, worktrees, parallel.json.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { withFakeClaude, type FakeCallScript, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli, type CliResult } from '../../helpers/run-cli.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { waitFor } from '../../integration/monitor/tmux-harness.js';

export interface ParallelProject {
  project: TmpProject;
  claude: FakeClaude;
  env: Record<string, string>;
  plan(): string;
  state(): { units: Array<Record<string, unknown>> } & Record<string, unknown>;
  branches(): string[];
  worktrees(): string[];
  cleanup(): void;
}

export const LONG = 180_000;

/** A call that does the unit's item: writes `file`, ticks the unit's plan. */
export function doesItem(item: string, files: Record<string, string>, extra: FakeCallScript = {}): FakeCallScript {
  return { match: { promptRegex: `one item of the plan: ${item}` }, resultText: `Did ${item}.`, tickFixPlan: 'all', writeFiles: files, ...extra };
}

export function parallelProject(planItems: string[], scenario: FakeScenario, options: { files?: Record<string, string>; rc?: string } = {}): ParallelProject {
  const plan = `# Fix Plan\n\n## Tasks\n${planItems.map((item) => `- [ ] ${item}`).join('\n')}\n`;
  const project = tmpProject(
    ralphProjectTree({ '.ralph/fix_plan.md': plan, '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="echo ok"\n${options.rc ?? ''}`, ...options.files }),
    { git: true },
  );
  const claude = withFakeClaude(scenario);
  const env = { ...claude.env, ...GIT_TEST_ENV };
  return {
    project,
    claude,
    env,
    plan: () => readFileSync(project.path('.ralph/fix_plan.md'), 'utf8'),
    state: () => JSON.parse(readFileSync(project.path('.ralph/parallel.json'), 'utf8')),
    branches: () => project.git('for-each-ref', '--format=%(refname:short)', 'refs/heads/').trim().split('\n').filter(Boolean),
    worktrees: () => (existsSync(project.path('.ralph/worktrees')) ? readdirSync(project.path('.ralph/worktrees')) : []),
    cleanup: () => {
      project.cleanup();
      claude.cleanup();
    },
  };
}

/** An agent call that hangs (with a child process of its own) until it is stopped. */
export const HANGS: FakeCallScript = { hang: 'afterInit', spawnChild: { lifetimeMs: 120_000 } };

/** Runs `bin args` in the project and sends it SIGINT once `agents` agents are in flight. */
export function interruptWithAgentsInFlight(p: ParallelProject, bin: string, args: string[], agents: number): Promise<CliResult> {
  return runCli(bin, args, {
    cwd: p.project.dir,
    env: p.env,
    onSpawn: (child) => {
      void waitFor(`${agents} agents in flight`, () => p.claude.runs().filter((c) => c.childPid !== undefined).length === agents, 60_000)
        .then(() => child.kill('SIGINT'))
        .catch(() => child.kill('SIGKILL'));
    },
  });
}
