// metrics.jsonl as a subscriber of the loop events: each measured loop is one line, in the
// project's logs and, for a run of `ralph --parallel`, in the account's combined file too.

import type { Logger } from '../platform/deps.js';
import type { RalphPaths } from '../state/paths.js';
import { isRefusedWrite } from '../state/no-follow.js';
import { appendMetrics } from '../state/store.js';
import type { LoopEvents } from './events.js';
import type { SharedAccount } from '../limits/shared-account.js';

export interface MetricsSubscriberOptions {
  paths: Pick<RalphPaths, 'metrics'>;
  logger: Pick<Logger, 'warn'>;
  /** The account this run shares (ralph --parallel): its metrics get the line as well. */
  account?: Pick<SharedAccount, 'recordMetrics'>;
}

export function subscribeMetrics(events: LoopEvents, options: MetricsSubscriberOptions): void {
  events.on('iteration:measured', ({ line }) => {
    try {
      appendMetrics(options.paths, line);
    } catch (error) {
      // A link planted in place of metrics.jsonl costs the line, not the run.
      if (!isRefusedWrite(error)) throw error;
      options.logger.warn(error.message);
    }
    options.account?.recordMetrics(line);
  });
}
