// The effective settings a read-only view (ralph-monitor, `ralph --status`) needs to read the
// project the way its loop does: the control-file paths (FIX_PLAN_FILE, AGENT_FILE,
// PROMPT_FILE), OPTIONAL_SECTIONS and the usage-limit wait settings, from the same layers as the loop (env > .ralphrc >
// ~/.ralphrc > default). A view must still show something when .ralphrc is broken, so a
// problem becomes a warning and the defaults are used.

import type { UsageLimitWaitSettings } from '../limits/reset-time.js';
import { isRalphError } from '../errors.js';
import { ledgerPath } from '../state/ledger-path.js';
import { projectPaths, ralphPaths, type RalphPaths } from '../state/paths.js';
import { loadConfig } from './load-config.js';
import { defaultConfig, type RalphConfig } from './schema.js';
import { usageLimitWaitSettings } from '../limits/usage-limit-settings.js';

export interface ViewConfig {
  paths: RalphPaths;
  optionalSections: string[];
  /** USAGE_LIMIT_MARGIN_SECONDS / USAGE_LIMIT_WAIT_MINUTES: a stored wait is checked as the loop checks it. */
  usageWait: UsageLimitWaitSettings;
  /** What could not be used, e.g. a .ralphrc error; shown by the view. */
  warnings: string[];
}

export interface LoadViewConfigOptions {
  projectDir: string;
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

export function loadViewConfig(options: LoadViewConfigOptions): ViewConfig {
  let config = defaultConfig();
  const warnings: string[] = [];
  // The run's figures are read from ralph's ledger outside the project; `.ralph/` holds its views.
  const ledger = ledgerPath(options.projectDir, options.env, options.homeDir);
  try {
    config = loadConfig({ ...options, flags: {} }).config;
    return { paths: { ...projectPaths(options.projectDir, config), ledger }, ...settingsOf(config), warnings };
  } catch (error) {
    if (!isRalphError(error)) throw error;
    warnings.push(`${error.message}; showing the plan with default settings (run ralph --config)`);
    return { paths: { ...ralphPaths(options.projectDir), ledger }, ...settingsOf(config), warnings };
  }
}

function settingsOf(config: RalphConfig): Pick<ViewConfig, 'optionalSections' | 'usageWait'> {
  return { optionalSections: config.OPTIONAL_SECTIONS, usageWait: usageLimitWaitSettings(config) };
}
