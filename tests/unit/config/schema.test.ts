import { describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS,
  CONFIG_SCHEMA,
  DEFAULT_ALLOWED_TOOLS,
  coerceConfigValue,
  defaultConfig,
  envNamesFor,
  resolveConfigKey,
  splitAllowedTools,
  suggestConfigKey,
  type ConfigKey,
} from '../../../lib/config/schema.js';
import { defaultStatusFile } from '../../../lib/state/schemas.js';

describe('config schema', () => {
  it('has the Bash keys, our keys and the accepted-only keys, each described', () => {
    for (const key of [
      'MAX_CALLS_PER_HOUR',
      'CLAUDE_TIMEOUT_MINUTES',
      'ALLOWED_TOOLS',
      'SESSION_CONTINUITY',
      'CB_NO_PROGRESS_THRESHOLD',
      'OPTIONAL_SECTIONS',
      'MAX_LOOPS',
      'MAX_COST_USD',
      'TEST_COMMAND',
      'PROMPT_FILE',
      'SANDBOX_PROVIDER',
      'SYNC_INCLUDE',
      'GITHUB_ISSUE',
      'RALPH_SHELL_INIT_FILE',
      'CLAUDE_MIN_VERSION',
    ]) {
      expect(CONFIG_KEYS).toContain(key);
    }
    for (const key of CONFIG_KEYS) expect(CONFIG_SCHEMA[key].description.length).toBeGreaterThan(3);
  });

  it('marks the keys accepted for compatibility but not used, and only those', () => {
    const unused = CONFIG_KEYS.filter((key) => CONFIG_SCHEMA[key].unused);
    for (const key of ['SANDBOX_E2B_TEMPLATE', 'SANDBOX_E2B_MAX_COST', 'SYNC_INCLUDE', 'CB_OUTPUT_DECLINE_THRESHOLD']) {
      expect(unused).toContain(key);
    }
    // Used: the sandboxes (lib/sandbox/); the plan and AGENT.md can be moved.
    for (const key of [
      'SANDBOX_PROVIDER',
      'SANDBOX_DOCKER_IMAGE',
      'SANDBOX_DOCKER_MEMORY',
      'SANDBOX_DOCKER_CPUS',
      'SANDBOX_DOCKER_NETWORK',
      'SANDBOX_BWRAP_BIND',
      'FIX_PLAN_FILE',
      'AGENT_FILE',
    ])
      expect(unused).not.toContain(key);
    // Used: the GitHub issue lifecycle.
    for (const key of ['GITHUB_ISSUE', 'COMMENT_PROGRESS', 'COMMENT_INTERVAL', 'CREATE_PR', 'ADD_COMPLETION_LABELS', 'FOLLOWUP_LABEL']) {
      expect(unused).not.toContain(key);
    }
    for (const key of unused) expect(CONFIG_SCHEMA[key].description).toMatch(/not used/i);
    for (const key of ['MAX_LOOPS', 'TEST_COMMAND', 'GITHUB_TASK_LABEL', 'RALPH_SHELL_INIT_FILE']) expect(unused).not.toContain(key);
  });

  it('gives the documented defaults', () => {
    const config = defaultConfig();
    expect(config.MAX_CALLS_PER_HOUR).toBe(100);
    expect(config.CLAUDE_TIMEOUT_MINUTES).toBe(15);
    expect(config.CLAUDE_OUTPUT_FORMAT).toBe('json');
    expect(config.SESSION_CONTINUITY).toBe(true);
    expect(config.SESSION_EXPIRY_HOURS).toBe(24);
    expect(config.CB_SAME_ERROR_THRESHOLD).toBe(5);
    expect(config.ALLOWED_TOOLS).toBe(DEFAULT_ALLOWED_TOOLS);
    expect(splitAllowedTools(config.ALLOWED_TOOLS)).toHaveLength(19);
    expect(config.OPTIONAL_SECTIONS).toEqual(['Optional', 'Future', 'Future Enhancements', 'Nice to Have']);
    expect(config.MAX_COST_USD).toBe(0);
    expect(config.PROMPT_FILE).toBe('.ralph/PROMPT.md');
    expect(config.SANDBOX_DOCKER_IMAGE).toBe('ralph-sandbox:latest');
    expect(config.COMMENT_INTERVAL).toBe(5);
    expect(config.FOLLOWUP_LABEL).toBe('tech-debt');
    expect(config.ADD_COMPLETION_LABELS).toEqual([]);
  });

  it('returns a fresh object each time, so callers cannot corrupt the defaults', () => {
    defaultConfig().OPTIONAL_SECTIONS.push('mutated');
    expect(defaultConfig().OPTIONAL_SECTIONS).not.toContain('mutated');
  });

  it('maps the Bash aliases to the .ralphrc names', () => {
    expect(resolveConfigKey('CLAUDE_ALLOWED_TOOLS')).toBe('ALLOWED_TOOLS');
    expect(resolveConfigKey('CLAUDE_USE_CONTINUE')).toBe('SESSION_CONTINUITY');
    expect(resolveConfigKey('CLAUDE_SESSION_EXPIRY_HOURS')).toBe('SESSION_EXPIRY_HOURS');
    expect(resolveConfigKey('VERBOSE_PROGRESS')).toBe('RALPH_VERBOSE');
    expect(resolveConfigKey('NOT_A_KEY')).toBeUndefined();
    expect(envNamesFor('ALLOWED_TOOLS')).toEqual(['ALLOWED_TOOLS', 'CLAUDE_ALLOWED_TOOLS']);
    expect(envNamesFor('MAX_LOOPS')).toEqual(['MAX_LOOPS']);
  });

  it('suggests a close key name for typos only', () => {
    expect(suggestConfigKey('MAX_CALL_PER_HOUR')).toBe('MAX_CALLS_PER_HOUR');
    expect(suggestConfigKey('SOMETHING_ELSE_ENTIRELY')).toBeUndefined();
  });

  it('splits ALLOWED_TOOLS on commas, trimming and dropping empties', () => {
    expect(splitAllowedTools(' Write, Bash(git add *) ,,Read ,')).toEqual(['Write', 'Bash(git add *)', 'Read']);
    expect(splitAllowedTools('')).toEqual([]);
  });
});

describe('coerceConfigValue', () => {
  const ok = (key: ConfigKey, raw: string) => {
    const result = coerceConfigValue(key, raw);
    if (!result.ok) throw new Error(result.message);
    return result.value;
  };
  const fail = (key: ConfigKey, raw: string) => {
    const result = coerceConfigValue(key, raw);
    if (result.ok) throw new Error(`accepted ${raw}`);
    return result.message;
  };

  it('reads booleans in every spelling, case-insensitively', () => {
    for (const word of ['true', 'TRUE', 'Yes', 'on', '1', ' true ']) expect(ok('DRY_RUN', word)).toBe(true);
    for (const word of ['false', 'False', 'NO', 'off', '0']) expect(ok('DRY_RUN', word)).toBe(false);
    expect(fail('DRY_RUN', 'maybe')).toBe('expected true or false, got "maybe"');
    expect(fail('DRY_RUN', '')).toContain('expected true or false');
  });

  it('validates whole numbers and their ranges', () => {
    expect(ok('MAX_CALLS_PER_HOUR', '50')).toBe(50);
    expect(fail('MAX_CALLS_PER_HOUR', 'ten')).toBe('expected a whole number from 1 to 100000, got "ten"');
    expect(fail('MAX_CALLS_PER_HOUR', '0')).toBe('expected a whole number from 1 to 100000, got "0"');
    expect(fail('MAX_CALLS_PER_HOUR', '1.5')).toContain('whole number');
    expect(ok('CLAUDE_TIMEOUT_MINUTES', '120')).toBe(120);
    expect(fail('CLAUDE_TIMEOUT_MINUTES', '999')).toBe('expected a whole number from 1 to 120, got "999"');
    expect(fail('CLAUDE_TIMEOUT_MINUTES', '0')).toContain('from 1 to 120');
    expect(fail('SESSION_EXPIRY_HOURS', '0')).toContain('from 1 to 8760');
    expect(ok('CB_NO_PROGRESS_THRESHOLD', '0')).toBe(0);
    expect(fail('CB_SAME_ERROR_THRESHOLD', '-1')).toBe('expected a whole number from 0 to 10000, got "-1"');
    expect(fail('CB_COOLDOWN_MINUTES', '')).toContain('whole number');
  });

  it('reads decimal numbers for money', () => {
    expect(ok('MAX_COST_USD', '2.50')).toBe(2.5);
    expect(ok('MAX_COST_USD', '.5')).toBe(0.5);
    expect(fail('MAX_COST_USD', 'five')).toBe('expected a number from 0 to 1000000, got "five"');
    expect(fail('MAX_COST_USD', '-1')).toContain('from 0 to 1000000');
  });

  it('checks the allowed words of enumerated strings', () => {
    expect(ok('CLAUDE_OUTPUT_FORMAT', 'text')).toBe('text');
    expect(fail('CLAUDE_OUTPUT_FORMAT', 'xml')).toBe('expected one of json, text, got "xml"');
    expect(ok('CLAUDE_EFFORT', '')).toBe('');
    expect(ok('CLAUDE_EFFORT', 'xhigh')).toBe('xhigh');
    expect(fail('CLAUDE_EFFORT', 'huge')).toBe('expected one of low, medium, high, xhigh, max (or empty), got "huge"');
  });

  it('splits lists and keeps free strings as they are', () => {
    expect(ok('OPTIONAL_SECTIONS', 'Later, Someday ,')).toEqual(['Later', 'Someday']);
    expect(ok('TEST_COMMAND', ' npm test ')).toBe(' npm test ');
  });
});

describe('defaults kept outside the schema', () => {
  // lib/state sits below the config room and cannot import it: status.json's stand-in before the
  // first loop repeats two limits, which must stay the schema's.
  it("status.json's stand-in shows the schema's hourly limits", () => {
    expect(defaultStatusFile()).toMatchObject({
      max_calls_per_hour: CONFIG_SCHEMA.MAX_CALLS_PER_HOUR.default,
      max_tokens_per_hour: CONFIG_SCHEMA.MAX_TOKENS_PER_HOUR.default,
    });
  });
});
