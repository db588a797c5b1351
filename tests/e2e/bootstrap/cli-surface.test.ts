// The surface every command shares, as a user meets it: --version in one format on every
// command, -v meaning --verbose only, and `ralph --help` laid out for an 80-column terminal.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { tmpProject } from '../../helpers/tmp-project.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const COMMANDS = [
  'ralph',
  'ralph-monitor',
  'ralph-setup',
  'ralph-enable',
  'ralph-enable-ci',
  'ralph-import',
  'ralph-migrate',
  'ralph-stats',
  'ralph-queue',
  'ralph-fleet',
];

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
      // …and say what the version flag is, not only `Unknown argument: v`.
      expect(r.stderr, command).toContain(`Error: Unknown argument: v (-v is not a flag of ${command}: --version shows its version)`);
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
        "  .ralph/status.json   the loop's state",
        '  .ralph/logs/         ralph.log, claude_output_*.log, metrics.jsonl',
      ].join('\n'),
    );
    // The pre-rendered fast path and the full parser print the same text.
    expect((await runCli('ralph', ['--help', '--debug'])).stdout).toBe(r.stdout);
  });
});

describe('Node.js version', () => {
  it('every command refuses an older Node.js with the minimum from package.json, before doing anything', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=20.19');
    const { spawnSync } = await import('node:child_process');
    const { binPath } = await import('../../helpers/run-cli.js');
    // Pretend to be Node 20.18 (one minor too old); the real binary still runs the check.
    const pretend = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.18.3"})';
    for (const command of COMMANDS) {
      const p = tmpProject({});
      try {
        const r = spawnSync(process.execPath, ['--import', pretend, binPath(command), '--version'], { cwd: p.dir, encoding: 'utf8' });
        expect(r.status, command).toBe(1);
        expect(r.stdout, command).toBe('');
        expect(r.stderr, command).toContain('Error: ralph needs Node.js 20.19.0 or newer; this is Node.js 20.18.3');
        expect(r.stderr, command).toContain('hint: install a current Node.js LTS');
      } finally {
        p.cleanup();
      }
    }
    const ok = spawnSync(process.execPath, ['--import', pretend.replace('20.18.3', '20.19.0'), binPath('ralph'), '--version'], { encoding: 'utf8' });
    expect(ok.status).toBe(0);
  });
});
