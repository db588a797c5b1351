// What the units of one run ask their agent's CLI before their first loop, asked once: every
// unit's loop finds its agent the ordinary way (`<cli> --version`), and N units starting
// together would start N copies of the CLI (each a Node start of its own) to hear one answer.
// The first unit's question is run; the others that ask the same command the same way, while it
// runs or after it answered, get its answer. A question whose answer can depend on the unit's
// folder (a relative command, or a relative PATH entry) is shared only by units in that folder.
// A question that failed is asked again by the next unit. Anything else runs as it is.
// `ralph --parallel` asks the question as the run starts (askAgentVersionEarly), while it checks
// the project and makes the worktrees, so the first unit finds the answer on its way.

import { delimiter, isAbsolute } from 'node:path';
import { agentCommandOf, chooseAgent } from '../agents/choose-agent.js';
import type { LoadConfigResult } from '../config/load-config.js';
import { findAgentCommand } from '../loop/startup.js';
import type { Deps } from '../platform/deps.js';
import { PACKAGE_ROOT } from '../platform/package-root.js';
import type { ProcessRunner, RunOptions, RunResult } from '../platform/process.js';
import { agentQuestionRunner, sandboxSettingsOf } from '../sandbox/open-sandbox.js';

const sharing = new WeakSet<ProcessRunner>();

/** A runner whose `--version` questions are run once for all the units that ask them. */
export function shareVersionQuestions(runner: ProcessRunner): ProcessRunner {
  if (sharing.has(runner)) return runner;
  const answers = new Map<NodeJS.ProcessEnv | undefined, Map<string, Promise<RunResult>>>();
  const shared: ProcessRunner = {
    start: (cmd, args, options) => runner.start(cmd, args, options),
    run(cmd: string, args: readonly string[], options?: RunOptions): Promise<RunResult> {
      if (args[args.length - 1] !== '--version' || options?.input !== undefined) return runner.run(cmd, args, options);
      const env = options?.env;
      const byEnv = answers.get(env) ?? new Map<string, Promise<RunResult>>();
      answers.set(env, byEnv);
      const key = JSON.stringify([cmd, args, dependsOnFolder(cmd, env ?? process.env) ? (options?.cwd ?? '') : '']);
      const known = byEnv.get(key);
      if (known) return known.then((result) => ({ ...result }));
      const asked = runner.run(cmd, args, options);
      byEnv.set(key, asked);
      void asked.then(
        (result) => {
          if (result.code !== 0 || result.spawnError) byEnv.delete(key);
        },
        () => byEnv.delete(key),
      );
      return asked.then((result) => ({ ...result }));
    },
  };
  sharing.add(shared);
  return shared;
}

/**
 * Asks the run's agent CLI its version now, through `runner` (shareVersionQuestions), the way
 * each unit's loop will ask it (lib/loop/startup.ts): the answer waits for the units' own
 * question. Nothing is said or decided here: a CLI that is missing or fails is each unit's to
 * report. In Docker no unit asks (the CLI is the image's), so neither does this.
 */
export function askAgentVersionEarly(loaded: LoadConfigResult, projectDir: string, deps: Deps, runner: ProcessRunner): void {
  const { config, sources } = loaded;
  try {
    const settings = sandboxSettingsOf(config, sources.SANDBOX_PROVIDER);
    if (settings.provider === 'docker') return;
    const agent = chooseAgent(config);
    const { env, homeDir } = deps;
    void findAgentCommand({
      agent,
      configured: agentCommandOf(config, agent),
      configuredFromDefault: sources[agent.commandKey].kind === 'default',
      env,
      projectDir,
      ralphRoot: PACKAGE_ROOT,
      processRunner: agentQuestionRunner(settings, { projectDir, homeDir, env, processRunner: runner }),
    }).catch(() => undefined);
  } catch {
    // A setting the units' loops refuse: each says so itself.
  }
}

/** Whether which file `cmd` runs depends on the folder it is run in. */
function dependsOnFolder(cmd: string, env: NodeJS.ProcessEnv): boolean {
  if (cmd.includes('/')) return !isAbsolute(cmd);
  return (env.PATH ?? '').split(delimiter).some((dir) => !isAbsolute(dir));
}
