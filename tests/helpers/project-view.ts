// The settings a view (ralph-monitor, `ralph --status --json`) reads a test project with: the
// project's own .ralphrc through the same loader as the CLI, no ~/.ralphrc and no environment
// unless given. The views take their configuration as a required parameter, so every test says
// which one it uses.

import { join } from 'node:path';
import { defaultConfig } from '../../lib/config/schema.js';
import { usageLimitWaitSettings } from '../../lib/limits/usage-limit-settings.js';
import { loadViewConfig, type ViewConfig } from '../../lib/config/view-config.js';

export function projectView(projectDir: string, env: Record<string, string> = {}): ViewConfig {
  return loadViewConfig({ projectDir, homeDir: join(projectDir, '.no-home'), env });
}

/** What assembleSnapshot needs of the configuration, at the schema's defaults. */
export function defaultViewSettings() {
  const config = defaultConfig();
  return { optionalSections: config.OPTIONAL_SECTIONS, usageWait: usageLimitWaitSettings(config), planFile: 'fix_plan.md' };
}
