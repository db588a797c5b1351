// pytest that collects no tests exits 5: through the real `bin/ralph` that is "no tests
// collected" (the gate could not verify anything), shown with pytest's own "collected 0 items"
// line, never a failing test.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runCli } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

// A stand-in for pytest on a project without tests: its real output and exit code 5.
const PYTEST = [
  '#!/usr/bin/env node',
  "console.log('============================= test session starts ==============================');",
  "console.log('collected 0 items');",
  "console.log('============================ no tests ran in 0.01s =============================');",
  'process.exit(5);',
  '',
].join('\n');

const cleanups = useCleanups();

function setup(claim: Record<string, string | boolean>): { p: TmpProject; f: FakeClaude; env: NodeJS.ProcessEnv } {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TEST_COMMAND="pytest"\n`, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] add tests\n' }), {
    git: true,
  });
  const f = withFakeClaude({
    calls: [1, 2, 3, 4, 5].map((n) => ({ writeFiles: { [`src/app${n}.py`]: `x = ${n}\n` }, statusBlock: claim })),
  });
  const bin = mkdtempSync(join(tmpdir(), 'ralph-pytest-'));
  writeFileSync(join(bin, 'pytest'), PYTEST);
  chmodSync(join(bin, 'pytest'), 0o755);
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
    () => rmSync(bin, { recursive: true, force: true }),
  );
  return { p, f, env: { ...f.env, PATH: `${bin}${delimiter}${f.env.PATH ?? ''}` } };
}

describe('pytest collecting no tests', () => {
  it('is "no tests collected" with pytest\'s own line, not a failing test', async () => {
    const { p, f, env } = setup({ STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false, TESTS_STATUS: 'PASSING' });
    const r = await runCli('ralph', [], { cwd: p.dir, env });

    expect(r.code).toBe(2);
    expect(f.runs()).toHaveLength(3);
    expect(r.stderr).toContain('no tests collected');
    expect(r.stderr).toContain('collected 0 items');
    expect(r.stderr).not.toMatch(/1 failing|FAILED|failed the same way/);
    expect(r.stderr).toContain('could not complete in 3 consecutive loops');
  });
});
