// A push retried with backoff: a transient failure at the end of a job of hours must not lose its
// work. The waits go through the injected clock.

import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/deps.js';

/** The waits between the attempts of a push: four attempts over about two minutes. */
export const PUSH_RETRY_DELAYS_MS: readonly number[] = [10_000, 30_000, 90_000];

/** Runs `attempt` until it succeeds or every wait is used; the last failure is thrown. */
export async function withRetries<T>(
  what: string,
  attempt: () => Promise<T>,
  clock: Clock,
  logger: Logger,
  delays: readonly number[] = PUSH_RETRY_DELAYS_MS,
): Promise<T> {
  for (let tried = 0; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = delays[tried];
      if (wait === undefined) throw error;
      logger.warn(`Could not ${what} (${(error as Error).message}): trying again in ${Math.round(wait / 1000)} s`);
      await clock.sleep(wait);
    }
  }
}
