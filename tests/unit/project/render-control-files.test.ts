import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_SCHEMA, defaultConfig, resolveConfigKey, type ConfigKey } from '../../../lib/config/schema.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { parseRalphrc } from '../../../lib/config/ralphrc.js';
import type { ProjectContext } from '../../../lib/project/project-context.js';
import { parseFixPlan } from '../../../lib/plan/fix-plan.js';
import { renderAgentMd, renderFixPlan, renderRalphrc } from '../../../lib/project/render-control-files.js';

const defaults: ProjectContext = { name: 'demo', type: 'unknown', buildCommand: '', testCommand: '', runCommand: '' };

describe('renderAgentMd', () => {
  it('writes the detected commands, or a visible default', () => {
    const agent = renderAgentMd({ ...defaults, testCommand: 'cargo test', packageManager: 'cargo' });
    expect(agent).toContain('```bash\ncargo test\n```');
    expect(agent).toContain("echo 'No build command configured'");
    expect(agent).toContain('Package manager: cargo');
  });
});

describe('renderFixPlan', () => {
  it('puts imported tasks under Tasks, the last section, and nothing else open', () => {
    const plan = renderFixPlan(['- [ ] [#1] one', '- [ ] [#2] two']);
    expect(plan.slice(plan.lastIndexOf('## Tasks'))).toBe('## Tasks\n- [ ] [#1] one\n- [ ] [#2] two\n');
    expect(plan.match(/^- \[ \]/gm)).toHaveLength(2);
    expect(plan).toContain('## Optional');
    // No ticked setup item: it would count as a task done (#15 point 16).
    expect(plan).not.toMatch(/^\s*[-*+] \[[xX]\]/m);
  });

  it("reads back through the loop's fix_plan parser with exactly the imported tasks open", () => {
    const summary = parseFixPlan(renderFixPlan(['- [ ] a', '- [ ] b', '- [ ] c']), ['Optional']);
    expect(summary).toMatchObject({ blocking: { open: 3, done: 0 }, optional: { open: 0, done: 0 }, openItems: ['a', 'b', 'c'] });
  });

  it('holds no task when nothing was imported: its example is never counted', () => {
    const plan = renderFixPlan([]);
    expect(plan).toMatch(/- \[ \] Add hello\.sh/);
    expect(parseFixPlan(plan, ['Optional']).items).toEqual([]);
  });

  it('ends with the Tasks heading, so a line appended to the file is a task there', () => {
    const appended = `${renderFixPlan([])}- [ ] Add hello.sh\n`;
    expect(parseFixPlan(appended, ['Optional']).items).toEqual([expect.objectContaining({ text: 'Add hello.sh', section: 'Tasks', optional: false })]);
  });
});

describe('renderRalphrc', () => {
  it('is read by the .ralphrc reader without problems and carries TEST_COMMAND', () => {
    const text = renderRalphrc({
      context: { ...defaults, name: 'svc', type: 'python', testCommand: 'uv run pytest', packageManager: 'uv' },
      generatedBy: 'ralph-enable',
      maxCallsPerHour: 42,
      taskSources: ['github', 'local'],
      githubTaskLabel: 'todo',
    });
    const { entries, problems } = parseRalphrc(text, { env: {} });
    expect(problems).toEqual([]);
    const values = Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
    expect(values).toMatchObject({
      PROJECT_NAME: 'svc',
      PROJECT_TYPE: 'python',
      MAX_CALLS_PER_HOUR: '42',
      TEST_COMMAND: 'uv run pytest',
      TASK_SOURCES: 'github,local',
      GITHUB_TASK_LABEL: 'todo',
      SESSION_CONTINUITY: 'true',
    });
    expect(values.ALLOWED_TOOLS?.split(',')).toEqual(expect.arrayContaining(['Bash(git commit *)', 'Bash(uv *)']));
    expect(values.ALLOWED_TOOLS).not.toContain('Bash(git *)');
  });

  it('keeps hostile names literal: nothing is expanded or executed', () => {
    const name = 'x"; $(touch pwned) `id` $HOME \\';
    const text = renderRalphrc({ context: { ...defaults, name }, generatedBy: 'test' });
    const { entries, problems } = parseRalphrc(text, { env: { HOME: '/home/someone' } });
    expect(problems).toEqual([]);
    expect(entries.find((entry) => entry.key === 'PROJECT_NAME')?.value).toBe(name);
  });

  it('pins no agent command and holds only keys that do something', () => {
    const text = renderRalphrc({ context: defaults, generatedBy: 'ralph-setup' });
    const active = parseRalphrc(text, { env: {} }).entries.map((entry) => entry.key);
    expect(active).not.toContain('CLAUDE_CODE_CMD');
    const mentioned = [...text.matchAll(/^#?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1] as string);
    expect(mentioned).toContain('CLAUDE_CODE_CMD');
    for (const key of mentioned) {
      const spec = CONFIG_SCHEMA[resolveConfigKey(key)!];
      expect(spec, key).toBeDefined();
      expect(spec.description, key).not.toMatch(/not used|ignored/i);
    }
    expect(text).not.toMatch(/npx|SANDBOX_|RALPH_SHELL_INIT_FILE|CB_OUTPUT_DECLINE_THRESHOLD/);
    expect(text).not.toMatch(/update the claude code cli/i);
  });

  // The schema is the one source of defaults: the shipped template types no value of a key (the
  // pin example aside, which is no default), and every key the file sets or shows commented out
  // is rendered with the schema's default unless set-up detected or was told it.
  const EXAMPLES: Record<string, string> = { CLAUDE_CODE_CMD: '"/opt/claude/bin/claude"' };
  const templateText = readFileSync(join(REPO_ROOT, 'templates', 'ralphrc'), 'utf8');

  it('types no value in the shipped template: each key line is its own {{KEY}}', () => {
    const lines = [...templateText.matchAll(/^#?([A-Z][A-Z0-9_]+)=(.*)$/gm)];
    expect(lines.length).toBeGreaterThan(10);
    for (const [, key, value] of lines) {
      expect(resolveConfigKey(key!), key).toBe(key);
      expect(value, key).toBe(EXAMPLES[key!] ?? `{{${key}}}`);
    }
  });

  it("writes the schema's default for every key set-up has no value of its own for", () => {
    const text = renderRalphrc({ context: defaults, generatedBy: 'ralph-setup' });
    const written = [...text.replace(/^#/gm, '').matchAll(/^([A-Z][A-Z0-9_]+)=.*$/gm)].map((m) => m[0]);
    const { entries, problems } = parseRalphrc(written.join('\n'), { env: {} });
    expect(problems).toEqual([]);
    const own = new Set(['PROJECT_NAME', 'PROJECT_TYPE', 'ALLOWED_TOOLS', 'TEST_COMMAND', ...Object.keys(EXAMPLES)]);
    const checked = entries.filter((entry) => !own.has(entry.key));
    expect(checked.map((entry) => entry.key)).toEqual(
      expect.arrayContaining(['CLAUDE_TIMEOUT_MINUTES', 'CB_SAME_ERROR_THRESHOLD', 'MAX_TOKENS_PER_HOUR', 'MAX_CALLS_PER_HOUR']),
    );
    const config = defaultConfig();
    for (const { key, value } of checked) {
      const wanted = config[key as ConfigKey];
      expect(value, key).toBe(Array.isArray(wanted) ? wanted.join(',') : String(wanted));
    }
  });
});
