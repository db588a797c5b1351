// `ralph --demo`: the whole loop, with no account and nothing spent — a throw-away project with
// three tasks, ralph's built-in scripted agent in place of Claude Code, the verification gate
// running the project's tests, and the closing summary — then the project is removed. With
// --monitor the same run is shown in tmux beside the dashboard.

import { runProject } from '../../loop/run-project.js';
import { createDeps } from '../../platform/create-deps.js';
import { nodeProcessRunner } from '../../platform/process.js';
import { createDemoProject, type DemoProject } from '../../demo/demo-project.js';
import { ralphPaths } from '../../state/paths.js';
import type { RalphCliOptions } from './ralph-options.js';

export const DEMO_BANNER = [
  '=== ralph --demo ===',
  "A demo run: ralph's built-in scripted agent stands in for Claude Code. No account, no model,",
  'nothing spent. It works on a throw-away project with three tasks:',
];

/** What a user does after the demo: the same on a project of their own. */
export const DEMO_NEXT = 'ralph-setup my-project (or ralph-enable in a project you have), write your tasks in .ralph/fix_plan.md, then ralph --doctor';

export async function runDemo(options: RalphCliOptions): Promise<number> {
  const say = (text: string) => void process.stdout.write(`${text}\n`);
  const demo = await createDemoProject({ env: process.env, runner: nodeProcessRunner });
  say([...DEMO_BANNER, `  ${demo.projectDir}`, '(its plan: .ralph/fix_plan.md; its tests run by the verification gate after each loop)', ''].join('\n'));
  if (options.monitor) return runDemoInMonitor(demo, options, say);
  let code: number;
  try {
    const deps = createDeps({
      cwd: demo.projectDir,
      logFile: ralphPaths(demo.projectDir).ralphLog,
      env: demo.env,
      verbose: options.flags.RALPH_VERBOSE === true,
    });
    code = await runProject({ projectDir: demo.projectDir, flags: options.flags, deps, nextCommand: DEMO_NEXT });
  } finally {
    demo.remove();
  }
  say(['', `=== End of the demo (exit ${code}). Nothing was kept: ${demo.root} is removed. ===`].join('\n'));
  return code;
}

/** The run in tmux: attached, the project goes once the session ends; detached, it is kept and said so. */
async function runDemoInMonitor(demo: DemoProject, options: RalphCliOptions, say: (text: string) => void): Promise<number> {
  Object.assign(process.env, demo.env);
  const attached = Boolean(process.stdout.isTTY);
  const { launchMonitorSessionFromCli } = await import('../../monitor/launch-from-cli.js');
  const argv = options.argv.filter((arg) => arg !== '--demo');
  let code: number;
  try {
    code = await launchMonitorSessionFromCli(argv, { cwd: demo.projectDir, keepMonitor: options.keepMonitor, unitWindows: 0 });
  } finally {
    if (attached) demo.remove();
  }
  if (attached) say(`=== End of the demo (exit ${code}). Nothing was kept: ${demo.root} is removed. ===`);
  else say(`=== The demo runs on in tmux. Kept until you remove it: ${demo.root} (rm -rf it when the run has ended) ===`);
  return code;
}
