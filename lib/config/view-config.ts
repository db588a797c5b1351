// The effective settings a read-only view (ralph-monitor, `ralph --status`) needs to read the
// project the way its loop does: the control-file paths (FIX_PLAN_FILE, AGENT_FILE,
// PROMPT_FILE) and OPTIONAL_SECTIONS, from the same layers as the loop (env > .ralphrc >
// ~/.ralphrc > default). A view must still show something when .ralphrc is broken, so a
// problem becomes a warning and the defaults are used.

import { isRalphError } from '../errors.js';
import { projectPaths, ralphPaths, type RalphPaths } from '../state/paths.js';
import { loadConfig } from './load-config.js';
import { defaultConfig } from './schema.js';

export interface ViewConfig {
  paths: RalphPaths;
  optionalSections: string[];
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
  try {
    config = loadConfig({ ...options, flags: {} }).config;
    return { paths: projectPaths(options.projectDir, config), optionalSections: config.OPTIONAL_SECTIONS, warnings };
  } catch (error) {
    if (!isRalphError(error)) throw error;
    warnings.push(`${error.message}; showing the plan with default settings (run ralph --config)`);
    return { paths: ralphPaths(options.projectDir), optionalSections: config.OPTIONAL_SECTIONS, warnings };
  }
}

/** The defaults, for callers that have no configuration (tests, the bench). */
export function defaultViewConfig(projectDir: string): ViewConfig {
  return { paths: ralphPaths(projectDir), optionalSections: defaultConfig().OPTIONAL_SECTIONS, warnings: [] };
}
