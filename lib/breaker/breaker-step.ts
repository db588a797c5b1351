// The circuit breaker as the loop uses it: thresholds from the configuration, the one place
// the run's held breaker changes (written through, its history on a transition), and what to
// show when it changes state.

import type { RalphConfig } from '../config/schema.js';
import { formatBreakerBanner } from './breaker-messages.js';
import type { BreakerResult, BreakerThresholds, BreakerTransition } from './circuit-breaker.js';
import type { Logger } from '../platform/deps.js';
import type { RunSetup } from '../loop/run.js';

export function breakerThresholds(config: RalphConfig): BreakerThresholds {
  return {
    noProgress: config.CB_NO_PROGRESS_THRESHOLD,
    sameError: config.CB_SAME_ERROR_THRESHOLD,
    permissionDenials: config.CB_PERMISSION_DENIAL_THRESHOLD,
    cooldownMinutes: config.CB_COOLDOWN_MINUTES,
    autoReset: config.CB_AUTO_RESET,
  };
}

/** Holds the breaker's new state for the run, writes it through, and tells of a transition. */
export function holdBreaker(run: RunSetup, result: BreakerResult): void {
  run.state.breaker.hold(result);
  if (result.transition) reportBreakerTransition(run.deps.logger, result.transition);
}

export function reportBreakerTransition(logger: Logger, transition: BreakerTransition): void {
  const [title, reason] = formatBreakerBanner(transition);
  const level = transition.to === 'OPEN' ? 'ERROR' : transition.to === 'HALF_OPEN' ? 'WARN' : 'SUCCESS';
  logger.log(level, `${title} — ${reason}`);
}
