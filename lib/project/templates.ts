// Where the shipped templates live and how they are filled in. `{{NAME}}` placeholders are
// replaced by plain string substitution (no template language, nothing evaluated).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RalphError } from '../errors.js';
import { PACKAGE_ROOT } from '../platform/package-root.js';

// The project .gitignore template is stored as `gitignore`: npm leaves every file named
// `.gitignore` out of a published package (and one in templates/ would apply to this repo).
export type TemplateName = 'PROMPT.md' | 'fix_plan.md' | 'AGENT.md' | 'ralphrc' | 'gitignore';

export const TEMPLATE_NAMES: readonly TemplateName[] = ['PROMPT.md', 'fix_plan.md', 'AGENT.md', 'ralphrc', 'gitignore'];

/** Reads one template's text; tests pass their own to render without the disk. */
export type TemplateSource = (name: TemplateName) => string;

export function templatesDir(): string {
  return join(PACKAGE_ROOT, 'templates');
}

/** The skeleton copied into every new `.ralph/` (empty dirs kept by `.gitkeep`). */
export function ralphSkeletonDir(): string {
  return join(PACKAGE_ROOT, '.ralph-template');
}

/** Throws when the installation lacks its templates (nothing can be generated then). */
export function assertTemplatesInstalled(): void {
  const missing = TEMPLATE_NAMES.filter((name) => !existsSync(`${templatesDir()}/${name}`));
  if (missing.length > 0 || !existsSync(ralphSkeletonDir())) {
    throw new RalphError('templates_missing', `Ralph's templates were not found in ${templatesDir()}`, {
      hint: 'reinstall ralph (npm install -g ralph-claude-code, or ./install.sh)',
      details: missing.map((name) => `- missing: templates/${name}`),
    });
  }
}

export const diskTemplates: TemplateSource = (name) => readFileSync(`${templatesDir()}/${name}`, 'utf8');

const PLACEHOLDER = /\{\{([A-Z0-9_]+)\}\}/g;

/** Replaces every `{{KEY}}` whose key is in vars; unknown keys are left for findPlaceholders. */
export function renderTemplate(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, key: string) => (Object.hasOwn(vars, key) ? (vars[key] as string) : whole));
}

export function findPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}
