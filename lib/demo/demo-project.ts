// The throw-away project of `ralph --demo`: a private temporary folder holding the project (the
// scripted tasks, ralph's own .ralph/ files, a first commit) and ralph's state for it, and the
// settings that point ralph at the built-in scripted agent, whatever the user's own are. Removed
// with everything in it when the demo ends.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProcessRunner } from '../platform/process.js';
import { enableProject } from '../project/enable-project.js';
import { quoteRalphrcValue } from '../project/ralphrc-values.js';
import { ralphPaths } from '../state/paths.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { DEMO_PROJECT_FILES, DEMO_PROMPT, DEMO_STEPS, DEMO_TEST_COMMAND } from './demo-script.js';
import { runGitCommand } from '../platform/git-operations.js';

export interface DemoProject {
  /** The temporary folder: the project and ralph's state for it, nothing else. */
  root: string;
  projectDir: string;
  /** The environment the demo's ralph runs with: the user's, with the demo's settings on top. */
  env: NodeJS.ProcessEnv;
  remove(): void;
}

/** The scripted agent, as built beside this file (dist/cli/demo-agent/demo-agent.js). */
export function demoAgentScript(): string {
  return fileURLToPath(new URL('../cli/demo-agent/demo-agent.js', import.meta.url));
}

/**
 * Settings that win over the user's (the environment layer is above .ralphrc and ~/.ralphrc):
 * the scripted agent on the host, ralph's state inside the demo's folder, nothing that reaches
 * the network or a desktop, no budget that would ask the agent CLI anything.
 */
export function demoSettings(root: string, nodePath: string, agentScript: string): Record<string, string> {
  return {
    CLAUDE_CODE_CMD: `${quoteRalphrcValue(nodePath)} ${quoteRalphrcValue(agentScript)}`,
    AGENT_PROVIDER: 'claude',
    FALLBACK_AGENTS: '',
    SANDBOX_PROVIDER: '',
    // The scripted agent is ralph's own, and the folder a throw-away one: it may run as root.
    ALLOW_ROOT_AGENT: 'true',
    CLAUDE_AUTO_UPDATE: 'false',
    ENABLE_NOTIFICATIONS: 'false',
    ENABLE_BACKUP: 'false',
    GITHUB_ISSUE: '',
    MAX_COST_USD: '0',
    MAX_LOOPS: '10',
    PARALLEL: '1',
    DRY_RUN: 'false',
    TEST_COMMAND: DEMO_TEST_COMMAND,
    XDG_STATE_HOME: join(root, 'state'),
  };
}

export async function createDemoProject(options: { env: NodeJS.ProcessEnv; runner: ProcessRunner }): Promise<DemoProject> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-demo-')));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const projectDir = join(root, 'ralph-demo');
    mkdirSync(projectDir);
    for (const [file, text] of Object.entries(DEMO_PROJECT_FILES)) writeFileSync(join(projectDir, file), text);
    enableProject({
      projectDir,
      context: { name: 'ralph-demo', type: 'javascript', packageManager: 'npm', buildCommand: '', testCommand: DEMO_TEST_COMMAND, runCommand: '' },
      tasks: DEMO_STEPS.map((step) => `- [ ] ${step.task}`),
      force: false,
      generatedBy: 'ralph --demo',
    });
    writeFileAtomic(ralphPaths(projectDir).prompt, DEMO_PROMPT);
    const env = { ...options.env, ...demoSettings(root, process.execPath, demoAgentScript()) };
    await firstCommit(projectDir, env, options.runner);
    return { root, projectDir, env, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

async function firstCommit(projectDir: string, env: NodeJS.ProcessEnv, runner: ProcessRunner): Promise<void> {
  const identity = ['-c', 'user.name=ralph demo', '-c', 'user.email=demo@ralph.invalid', '-c', 'commit.gpgsign=false'];
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    [...identity, 'commit', '-q', '--no-verify', '-m', 'The ralph demo project'],
  ]) {
    const result = await runGitCommand(runner, args, { cwd: projectDir, env, timeoutMs: 30_000 });
    if (result.code !== 0)
      throw new Error(`git ${args.filter((a) => !a.startsWith('user.') && a !== '-c').join(' ')} failed in the demo project: ${result.stderr.trim()}`);
  }
}
