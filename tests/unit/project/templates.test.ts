import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProjectContext } from '../../../lib/project/project-context.js';
import { renderAgentMd, renderFixPlan, renderGitignore, renderPromptMd, renderRalphrc } from '../../../lib/project/render-control-files.js';
import { findPlaceholders, ralphSkeletonDir, renderTemplate, TEMPLATE_NAMES, templatesDir } from '../../../lib/project/templates.js';

const defaults: ProjectContext = { name: 'demo', type: 'unknown', buildCommand: '', testCommand: '', runCommand: '' };

const STATUS_BLOCK = `---RALPH_STATUS---
STATUS: IN_PROGRESS | COMPLETE | BLOCKED
TASKS_COMPLETED_THIS_LOOP: <number>
FILES_MODIFIED: <number>
TESTS_STATUS: PASSING | FAILING | NOT_RUN
WORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING
EXIT_SIGNAL: false | true
RECOMMENDATION: <one line summary>
---END_RALPH_STATUS---`;

function skeletonFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? skeletonFiles(path, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

describe('templates', () => {
  it('ships every template', () => {
    for (const name of TEMPLATE_NAMES) expect(readFileSync(join(templatesDir(), name), 'utf8').length).toBeGreaterThan(0);
  });

  it('renders each template with defaults and leaves no placeholder', () => {
    const rendered = {
      'PROMPT.md': renderPromptMd(defaults),
      'AGENT.md': renderAgentMd(defaults),
      'fix_plan.md': renderFixPlan([]),
      ralphrc: renderRalphrc({ context: defaults, generatedBy: 'test' }),
      gitignore: renderGitignore(),
    };
    expect(Object.keys(rendered).sort()).toEqual([...TEMPLATE_NAMES].sort());
    for (const [name, text] of Object.entries(rendered)) {
      expect(findPlaceholders(text), name).toEqual([]);
      expect(text, name).not.toMatch(/\{\{|\}\}/);
    }
  });

  it('renders the .ralph-template skeleton with no placeholder left', () => {
    const files = skeletonFiles(ralphSkeletonDir());
    expect(files).toEqual(expect.arrayContaining(['logs/.gitkeep', 'docs/generated/.gitkeep', 'specs/stdlib/.gitkeep', 'examples/.gitkeep']));
    for (const file of files) {
      const text = renderTemplate(readFileSync(join(ralphSkeletonDir(), file), 'utf8'), { PROJECT_NAME: 'demo' });
      expect(findPlaceholders(text), file).toEqual([]);
    }
  });

  it('has the RALPH_STATUS block exactly, EXIT_SIGNAL guidance, and Protected Files before Testing Guidelines', () => {
    const prompt = renderPromptMd({ ...defaults, type: 'typescript', framework: 'react' });
    expect(prompt).toContain(STATUS_BLOCK);
    expect(prompt).toContain('When to set EXIT_SIGNAL: true');
    expect(prompt).toContain('**Project Type:** typescript\n**Framework:** react');
    const protectedAt = prompt.indexOf('## Protected Files (DO NOT MODIFY)');
    expect(protectedAt).toBeGreaterThan(0);
    expect(protectedAt).toBeLessThan(prompt.indexOf('## Testing Guidelines'));
    expect(prompt).toMatch(/`\.ralph\/`.*\n- `\.ralphrc`/);
  });
});

describe('renderTemplate', () => {
  it('substitutes once, so a value that looks like a placeholder stays text', () => {
    expect(renderTemplate('{{A}} {{B}}', { A: '{{B}}', B: 'b' })).toBe('{{B}} b');
  });
});
