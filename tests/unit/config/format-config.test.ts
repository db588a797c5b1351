import { describe, expect, it } from 'vitest';
import { formatConfigJson, formatConfigText, isSecretSetting } from '../../../lib/config/format-config.js';
import { loadConfig } from '../../../lib/config/load-config.js';
import { CONFIG_KEYS } from '../../../lib/config/schema.js';

const SECRET = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';

function sampleResult() {
  const files: Record<string, string> = {
    'proj/.ralphrc': `# settings\nMAX_CALLS_PER_HOUR=50\nCLAUDE_CODE_CMD="env ANTHROPIC_API_KEY=${SECRET} claude"\nSANDBOX_E2B_TEMPLATE=mine\n`,
    'home/.ralphrc': 'CLAUDE_MODEL=opus\n',
  };
  return loadConfig({
    projectDir: 'proj',
    homeDir: 'home',
    env: { CLAUDE_USE_CONTINUE: 'false' },
    flags: { MAX_LOOPS: 3 },
    readFile: (path) => files[path.replaceAll('\\', '/')],
  });
}

describe('formatConfigText', () => {
  it('prints one aligned line per key with its value and source', () => {
    const lines = formatConfigText(sampleResult()).trimEnd().split('\n');
    expect(lines).toHaveLength(CONFIG_KEYS.length);
    const line = (key: string) => lines.find((l) => l.startsWith(`${key} `))!;
    expect(line('MAX_CALLS_PER_HOUR')).toMatch(/^MAX_CALLS_PER_HOUR += 50 +\(\.ralphrc:2\)$/);
    expect(line('CLAUDE_MODEL')).toMatch(/= opus +\(~\/\.ralphrc:1\)$/);
    expect(line('SESSION_CONTINUITY')).toMatch(/= false +\(env CLAUDE_USE_CONTINUE\)$/);
    expect(line('MAX_LOOPS')).toMatch(/= 3 +\(flag\)$/);
    expect(line('CLAUDE_MODEL')).toMatch(/= opus +\(~\/\.ralphrc:1\)$/);
    expect(line('CLAUDE_EFFORT')).toMatch(/= "" +\(default\)$/);
    expect(line('OPTIONAL_SECTIONS')).toContain('= Optional,Future,Future Enhancements,Nice to Have');
    expect(line('SANDBOX_E2B_TEMPLATE')).toMatch(/= mine +\(\.ralphrc:4, not used\)$/);
    expect(line('SYNC_INCLUDE')).toMatch(/= "" +\(default, not used\)$/);
    const equalsColumn = new Set(lines.map((l) => l.indexOf(' = ')));
    expect(equalsColumn.size).toBe(1);
    // Sources line up after values up to 40 characters; longer values push their own source along.
    const long = ['ALLOWED_TOOLS', 'OPTIONAL_SECTIONS'];
    const shortSourceColumns = new Set(lines.filter((l) => !long.some((k) => l.startsWith(k))).map((l) => l.lastIndexOf('  (')));
    expect(shortSourceColumns.size).toBe(1);
  });

  it('never prints a secret', () => {
    const text = formatConfigText(sampleResult());
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/CLAUDE_CODE_CMD += \*\*\* +\(\.ralphrc:3\)/);
  });
});

describe('formatConfigJson', () => {
  it('gives value, source and detail per key, with secrets masked', () => {
    const json = formatConfigJson(sampleResult());
    expect(Object.keys(json)).toEqual(CONFIG_KEYS);
    expect(json.MAX_CALLS_PER_HOUR).toEqual({ value: 50, source: 'ralphrc', detail: '.ralphrc:2' });
    expect(json.MAX_LOOPS).toEqual({ value: 3, source: 'flag' });
    expect(json.DRY_RUN).toEqual({ value: false, source: 'default' });
    expect(json.SANDBOX_E2B_TEMPLATE).toEqual({ value: 'mine', source: 'ralphrc', detail: '.ralphrc:4', unused: true });
    expect(json.OPTIONAL_SECTIONS.value).toEqual(['Optional', 'Future', 'Future Enhancements', 'Nice to Have']);
    expect(json.CLAUDE_CODE_CMD.value).toBe('***');
    expect(JSON.stringify(json)).not.toContain(SECRET);
  });
});

describe('isSecretSetting', () => {
  it('masks keys named like secrets and values shaped like tokens, not token budgets', () => {
    expect(isSecretSetting('E2B_API_KEY', 'abc')).toBe(true);
    expect(isSecretSetting('GITHUB_TOKEN', 'abc')).toBe(true);
    expect(isSecretSetting('CLIENT_SECRET', 'abc')).toBe(true);
    expect(isSecretSetting('E2B_API_KEY', '')).toBe(false);
    expect(isSecretSetting('MAX_TOKENS_PER_HOUR', 0)).toBe(false);
    expect(isSecretSetting('TEST_COMMAND', `GH=ghp_${'a'.repeat(36)} npm test`)).toBe(true);
    expect(isSecretSetting('TEST_COMMAND', 'npm test')).toBe(false);
  });
});
