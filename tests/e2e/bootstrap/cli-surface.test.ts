// The surface every command shares, as a user meets it: --version in one format on every
// command, -v meaning --verbose only, and `ralph --help` laid out for an 80-column terminal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { tmpProject } from '../../helpers/tmp-project.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const COMMANDS = ['ralph', 'ralph-monitor', 'ralph-setup', 'ralph-enable', 'ralph-enable-ci', 'ralph-import', 'ralph-migrate', 'ralph-stats'];

describe('--version', () => {
  it.each(COMMANDS)('%s --version prints "<command> <version>" and exits 0, creating nothing', async (command) => {
    const p = tmpProject({});
    try {
      const r = await runCli(command, ['--version'], { cwd: p.dir });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${command} ${VERSION}\n`);
      expect((await import('node:fs')).readdirSync(p.dir)).toEqual([]);
    } finally {
      p.cleanup();
    }
  });

  it('-v is never --version: ralph-enable and ralph-enable-ci reject it as an unknown option', async () => {
    for (const command of ['ralph-enable', 'ralph-enable-ci']) {
      const r = await runCli(command, ['-v']);
      expect(r.code, command).toBe(3);
      expect(r.stdout, command).not.toContain(VERSION);
    }
  });
});

describe('ralph --help', () => {
  it('fits 80 columns, shows each value as typed (--calls NUM) and no yargs type tags', async () => {
    const r = await runCli('ralph', ['--help']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toMatch(/\[(boolean|string|number)\]/);
    for (const flag of ['-c, --calls NUM', '-t, --timeout MIN', '--max-loops NUM', '--max-cost USD', '--session-expiry HOURS', '-v, --verbose']) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain(
      [
        'Files:',
        '  .ralph/PROMPT.md     instructions for Claude',
        '  .ralph/fix_plan.md   the task checklist',
        '  .ralph/AGENT.md      how to build, test and run the project',
        '  .ralph/status.json   the loop\'s state',
        '  .ralph/logs/         ralph.log, claude_output_*.log, metrics.jsonl',
      ].join('\n'),
    );
    // The pre-rendered fast path and the full parser print the same text.
    expect((await runCli('ralph', ['--help', '--debug'])).stdout).toBe(r.stdout);
  });
});
