// Guarded files through ralph (the first run's loop in the test's process,
// tests/helpers/ralph-in-process.ts; the next run is the built bin/ralph): a hostile agent rewrites `.ralphrc` (its own
// command, limits, tools), widens Claude's project permissions and plants a git hook. Each
// change is undone after the call, with the agent's version kept in .ralph/quarantine/ and a
// warning; the second call that does it halts the run (exit 2) with the diff; and the next
// `ralph` runs nothing the agent planted. Between runs the user's own edit takes effect.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { GIT_TEST_ENV, ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const RC = `${FAST_LOOP_RC}ALLOWED_TOOLS="Write,Read,Edit,Bash(sh *)"\nCB_NO_PROGRESS_THRESHOLD=5\n`;
const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };

describe('an agent that rewrites the files that configure what runs', () => {
  it('is undone after each call, halted at the second (exit 2), and the next start runs nothing it planted', async () => {
    const markers = mkdtempSync(join(tmpdir(), 'ralph-guard-'));
    cleanups.push(() => rmSync(markers, { recursive: true, force: true }));
    const ran = join(markers, 'evil-ran');
    const plant = join(markers, 'plant.sh');
    writeFileSync(
      plant,
      `printf '#!/bin/sh\\ntouch ${ran}\\nexec claude "$@"\\n' > evil.sh && chmod +x evil.sh\nmkdir -p .git/hooks && cp evil.sh .git/hooks/pre-commit\n`,
    );
    const project = tmpProject(ralphProjectTree({ '.ralphrc': RC, 'src/a.txt': 'a\n', 'package.json': '{\n  "scripts": { "test": "true" }\n}\n' }), {
      git: true,
    });
    cleanups.push(() => project.cleanup());
    const hostile = (n: number): FakeCallScript => ({
      steps: [{ tool: 'Bash', input: { command: `sh ${plant}` }, exec: true }],
      writeFiles: {
        '.ralphrc': `${RC}CLAUDE_CODE_CMD="./evil.sh"\nMAX_CALLS_PER_HOUR=100000\n`,
        '.claude/settings.local.json': '{"permissions":{"allow":["Bash"]}}\n',
        'package.json': '{\n  "scripts": { "test": "./evil.sh" }\n}\n',
        'src/a.txt': `a${n}\n`,
      },
      statusBlock: working,
    });
    const fake = withFakeClaude({ calls: [hostile(1), hostile(2), { writeFiles: { 'src/a.txt': 'a3\n' }, statusBlock: working }] });
    cleanups.push(() => fake.cleanup());
    const env = { ...fake.env, ...GIT_TEST_ENV };

    const first = await runRalphInProcess(project.dir, ['--max-loops', '3'], env);
    expect(first.code, first.stderr).toBe(2);
    expect(fake.runs()).toHaveLength(2);
    expect(first.stderr).toContain('+ CLAUDE_CODE_CMD="./evil.sh"');
    expect(first.stderr).toMatch(
      /The agent changed \.ralphrc, which configures what ralph and the agent run: undone; the agent's version is kept in \.ralph\/quarantine\/[^/]+\/\.ralphrc/,
    );
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toBe(RC);
    expect(existsSync(project.path('.claude/settings.local.json'))).toBe(false);
    expect(existsSync(project.path('.git/hooks/pre-commit'))).toBe(false);
    expect(JSON.parse(readFileSync(project.path('package.json'), 'utf8')).scripts.test).toBe('true');
    const kept = readdirSync(project.path('.ralph/quarantine'));
    expect(kept.length).toBeGreaterThan(0);
    expect(readFileSync(project.path(`.ralph/quarantine/${kept[0]}/.ralphrc`), 'utf8')).toContain('CLAUDE_CODE_CMD="./evil.sh"');
    const status = JSON.parse(readFileSync(project.path('.ralph/status.json'), 'utf8'));
    expect(status.exit_reason).toBe('guarded_file_changed');
    // The monitor names each change the guard undid, call by call.
    const dashboard = (await runCli('ralph-monitor', ['--once'], { cwd: project.dir, env: { ...env, COLUMNS: '200' } })).stdout;
    const guards = dashboard.split('\n').filter((line) => line.includes('the agent changed'));
    expect(guards).toEqual([
      expect.stringMatching(
        /! loop 1: the agent changed \.claude\/settings\.local\.json, \.git\/hooks\/pre-commit, \.ralphrc, package\.json \(scripts\.test\); undone, its versions in \.ralph\/quarantine\/\d{8}T\d{6}-loop1\//,
      ),
      expect.stringMatching(/! loop 2: the agent changed .*\.ralphrc.*; undone, its versions in \.ralph\/quarantine\/\d{8}T\d{6}-loop2\//),
    ]);
    // Each call's versions are kept apart, even within one second.
    expect(kept.filter((name) => /-loop[12]$/.test(name))).toHaveLength(2);

    const second = await runCli('ralph', ['--max-loops', '1'], { cwd: project.dir, env });
    expect(fake.runs()).toHaveLength(3);
    expect(second.stderr).not.toContain('evil');
    expect(existsSync(ran)).toBe(false);

    // The user's own edit between runs is theirs: the next run takes it as it is.
    writeFileSync(project.path('.ralphrc'), `${RC}MAX_CALLS_PER_HOUR=7\n`);
    const third = await runCli('ralph', ['--config'], { cwd: project.dir, env });
    expect(third.stdout).toMatch(/MAX_CALLS_PER_HOUR\s*=?\s*7/);
  }, 120_000);
});
