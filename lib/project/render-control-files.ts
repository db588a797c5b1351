// The text of every generated control file: .ralph/PROMPT.md, AGENT.md, fix_plan.md, the
// project's .ralphrc and .gitignore, rendered from templates/ with the detected context.

import type { ProjectContext } from './project-context.js';
import { CONFIG_SCHEMA } from '../config/schema.js';
import { allowedToolsFor, defaultRalphrcValues, quoteRalphrcValue } from './ralphrc-values.js';
import { diskTemplates, renderTemplate, type TemplateSource } from './templates.js';

const NO_COMMAND = {
  build: "echo 'No build command configured'",
  test: "echo 'No test command configured'",
  run: "echo 'No run command configured'",
};

export function renderPromptMd(context: ProjectContext, templates: TemplateSource = diskTemplates): string {
  const details = [`**Project Type:** ${context.type}`];
  if (context.framework) details.push(`**Framework:** ${context.framework}`);
  return renderTemplate(templates('PROMPT.md'), { PROJECT_NAME: context.name, PROJECT_DETAILS: details.join('\n') });
}

export function renderAgentMd(context: ProjectContext, templates: TemplateSource = diskTemplates): string {
  return renderTemplate(templates('AGENT.md'), {
    PROJECT_NAME: context.name,
    PROJECT_TYPE: context.type,
    PACKAGE_MANAGER: context.packageManager ?? 'none detected',
    BUILD_COMMAND: context.buildCommand || NO_COMMAND.build,
    TEST_COMMAND: context.testCommand || NO_COMMAND.test,
    RUN_COMMAND: context.runCommand || NO_COMMAND.run,
  });
}

/**
 * The user's tasks under "## Tasks", the last section, so that a line appended to the file
 * lands there. With none, the section is empty: a new plan holds no task the user did not
 * write (its example sits in an HTML comment line, which the plan parser never reads as an item).
 */
export function renderFixPlan(tasks: readonly string[], templates: TemplateSource = diskTemplates): string {
  return renderTemplate(templates('fix_plan.md'), { TASKS: tasks.join('\n') })
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n+$/, '\n');
}

export interface RalphrcOptions {
  context: ProjectContext;
  /** Shown in the header: ralph-setup, ralph-enable, ralph-enable-ci. */
  generatedBy: string;
  maxCallsPerHour?: number;
  /** e.g. ['github', 'local'] → TASK_SOURCES="github,local". */
  taskSources?: readonly string[];
  githubTaskLabel?: string;
}

/**
 * The project's .ralphrc: every `{{KEY}}` of the template is that key's default from the config
 * schema, except what set-up detected or was told (name, type, tools, test command, task sources).
 */
export function renderRalphrc(options: RalphrcOptions, templates: TemplateSource = diskTemplates): string {
  const { context } = options;
  return renderTemplate(templates('ralphrc'), {
    ...defaultRalphrcValues(),
    GENERATED_BY: options.generatedBy.replace(/[\r\n]+/g, ' '),
    PROJECT_NAME: quoteRalphrcValue(context.name),
    PROJECT_TYPE: quoteRalphrcValue(context.type),
    MAX_CALLS_PER_HOUR: String(options.maxCallsPerHour ?? CONFIG_SCHEMA.MAX_CALLS_PER_HOUR.default),
    ALLOWED_TOOLS: quoteRalphrcValue(allowedToolsFor(context.packageManager).join(',')),
    TEST_COMMAND: quoteRalphrcValue(context.testCommand),
    TASK_SOURCES: quoteRalphrcValue(options.taskSources?.join(',') ?? (CONFIG_SCHEMA.TASK_SOURCES.default as string)),
    GITHUB_TASK_LABEL: quoteRalphrcValue(options.githubTaskLabel ?? (CONFIG_SCHEMA.GITHUB_TASK_LABEL.default as string)),
  });
}

export function renderGitignore(templates: TemplateSource = diskTemplates): string {
  return templates('gitignore');
}

/** TASK_SOURCES as the Bash generator writes it: detected sources first, `local` last. */
export function taskSourcesList(sources: { beads: boolean; github: boolean }): string[] {
  return [...(sources.github ? ['github'] : []), ...(sources.beads ? ['beads'] : []), 'local'];
}
