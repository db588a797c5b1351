// The immediate state commands: `--reset-circuit`, `--circuit-status`, `--reset-session`.
// Like the Bash tool they act on the project's .ralph/ (and the breaker in ralph's ledger) and exit 0. The session reset is imported
// only by the commands that reset: `--circuit-status` loads just what it reads (start-up budgets,
// docs/performance.md).

import { homedir } from 'node:os';
import { loadConfig } from '../../config/load-config.js';
import { BREAKER_RESET_MESSAGE, formatCircuitStatus } from '../../breaker/breaker-messages.js';
import { cooldownEndsAt, resetBreaker } from '../../breaker/circuit-breaker.js';
import { breakerThresholds, reportBreakerTransition } from '../../breaker/breaker-step.js';
import { loadBreaker, recoverBreaker, saveBreaker } from '../../breaker/breaker-store.js';
import { createDeps } from '../../platform/create-deps.js';
import { ledgerPath } from '../../state/ledger-path.js';
import { ralphPaths } from '../../state/paths.js';
import { existsSync } from 'node:fs';
import { RalphError } from '../../errors.js';
import { stripTerminalControls } from '../../text/terminal-text.js';
import { notAProjectHint } from '../../project/nested-project.js';

export type StateCommand = 'reset-circuit' | 'circuit-status' | 'reset-session';

export interface StateCommandOptions {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
}

export async function runStateCommand(command: StateCommand, options: StateCommandOptions): Promise<number> {
  const paths = ralphPaths(options.projectDir);
  if (!existsSync(paths.ralphDir)) {
    throw new RalphError('not_a_project', 'This directory is not a Ralph project (no .ralph/ folder)', {
      hint: notAProjectHint(options.projectDir, 'cd into a Ralph project, or run ralph-enable here'),
    });
  }
  const deps = createDeps({ cwd: options.projectDir, env: options.env });
  // The breaker lives in ralph's ledger outside the project; `.circuit_breaker_state` is its view.
  paths.ledger = ledgerPath(options.projectDir, options.env, deps.homeDir);
  const state = { logger: deps.logger, clock: deps.clock };
  const now = deps.clock.now();
  switch (command) {
    case 'reset-circuit': {
      const { resetSession } = await import('../../sessions/agent-session.js');
      saveBreaker(paths, { state: resetBreaker('Manual reset via command line', now) }, state);
      options.write(`${BREAKER_RESET_MESSAGE}\n`);
      resetSession(paths, 'manual_circuit_reset', 0, state);
      return 0;
    }
    case 'reset-session': {
      const { resetSession } = await import('../../sessions/agent-session.js');
      resetSession(paths, 'manual_reset_flag', 0, state);
      options.write('✅ Session state reset successfully\n');
      return 0;
    }
    case 'circuit-status': {
      const { config } = loadConfig({ projectDir: options.projectDir, homeDir: homedir(), env: options.env, flags: {} });
      const thresholds = breakerThresholds(config);
      const result = recoverBreaker(paths, loadBreaker(paths, state), thresholds, state);
      if (result.transition) {
        reportBreakerTransition(deps.logger, result.transition);
      }
      if (!existsSync(paths.circuitBreakerState)) saveBreaker(paths, result, state);
      const lines = formatCircuitStatus(result.state, { cooldownEndsAt: cooldownEndsAt(result.state, thresholds), now });
      // The reason is read from .circuit_breaker_state, which the agent can write.
      options.write(stripTerminalControls(`${lines.join('\n')}\n`));
      return 0;
    }
  }
}
