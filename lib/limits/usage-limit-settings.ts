// The usage-limit wait settings in the form the pure decisions take them, from the effective config: the
// loop computes and checks its wait with them and the views (monitor, `--status --json`) check
// the stored wait with the same ones, so all agree on the margin and the longest wait.

import type { UsageLimitWaitSettings } from './reset-time.js';
import type { RalphConfig } from '../config/schema.js';

export function usageLimitWaitSettings(config: Pick<RalphConfig, 'USAGE_LIMIT_MARGIN_SECONDS' | 'USAGE_LIMIT_WAIT_MINUTES'>): UsageLimitWaitSettings {
  return { marginMs: config.USAGE_LIMIT_MARGIN_SECONDS * 1000, fallbackMs: config.USAGE_LIMIT_WAIT_MINUTES * 60_000 };
}
