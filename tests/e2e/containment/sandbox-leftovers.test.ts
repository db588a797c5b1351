// A ralph killed with -9 under a sandbox leaves its runtime directory behind, holding the copied
// credentials (and, for Docker, the env-file with the API key). The next ralph removes every
// `ralph-sandbox-<pid>-*` directory of a dead pid and says so; one of a live ralph is kept

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const DEAD_PID = 2 ** 22 + 4321; // above pid_max's default: never a live process

describe('sandbox leftovers of a dead ralph', () => {
  it('its runtime directory, credentials included, is removed; a live one is kept', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'ralph-tmp-'));
    cleanups.push(() => rmSync(temp, { recursive: true, force: true }));
    const dead = join(temp, `ralph-sandbox-${DEAD_PID}-abc123`);
    const live = join(temp, `ralph-sandbox-${process.pid}-def456`);
    for (const dir of [dead, live]) {
      mkdirSync(join(dir, 'home', '.claude'), { recursive: true });
      writeFileSync(join(dir, 'home', '.claude', '.credentials.json'), '{"token":"secret"}');
    }
    const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC }), { git: true });
    const f = withFakeClaude({ defaults: { statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } } });
    cleanups.push(
      () => p.cleanup(),
      () => f.cleanup(),
    );
    const r = await runCli('ralph', ['--max-loops', '1'], { cwd: p.dir, env: { ...f.env, TMPDIR: temp } });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(r.stderr).toContain(`Removed the sandbox runtime directory ${dead} left by pid ${DEAD_PID}`);
  }, 40_000);
});
