// The permission-denied halt of ralph's loop (in the test's process, tests/helpers/ralph-in-process.ts) says where to put the ALLOWED_TOOLS
// line: where the value came from (the environment and --allowed-tools override .ralphrc, so
// editing .ralphrc would change nothing), which rule stopped the run, and the narrowest rule.

import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

async function haltWith(options: { rc?: string; env?: Record<string, string>; args?: string[] }): Promise<string> {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}${options.rc ?? ''}` }), { git: true });
  const f = withFakeClaude({
    calls: [{ steps: [{ tool: 'Bash', input: { command: 'rm -rf build', description: 'Clean' } }, { text: 'Tried to clean.' }], writeFiles: { 'a.txt': 'a' } }],
  });
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  const r = await runRalphInProcess(p.dir, options.args ?? [], { ...f.env, ...options.env });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('EXECUTION HALTED: Permission Denied');
  expect(r.stderr).toMatch(/ALLOWED_TOOLS="[^"]*Bash\(rm -rf build\)"/);
  // Which rule stopped the run, and what the wider rule would allow.
  expect(r.stderr).toContain('Stopped by the exit check: ralph halts after the first loop with a denied tool');
  expect(r.stderr).toContain('CB_PERMISSION_DENIAL_THRESHOLD (2)');
  expect(r.stderr).toContain('Bash(rm -rf build) allows this exact command only; Bash(rm *) would also allow rm with any other arguments.');
  return r.stderr;
}

describe('the permission-denied halt', () => {
  it('names the environment when ALLOWED_TOOLS came from it', async () => {
    const stderr = await haltWith({ rc: 'ALLOWED_TOOLS="Read,Write"\n', env: { ALLOWED_TOOLS: 'Read,Write,Edit' } });
    expect(stderr).toContain('set this value in the environment variable ALLOWED_TOOLS, where it came from (it overrides .ralphrc)');
    expect(stderr).not.toContain('set this line in .ralphrc');
  });

  it('names --allowed-tools when the flag set it', async () => {
    const stderr = await haltWith({ args: ['--allowed-tools', 'Read,Write'] });
    expect(stderr).toContain('pass this list to --allowed-tools');
  });

  it("names .ralphrc's line when it came from there", async () => {
    const stderr = await haltWith({ rc: 'ALLOWED_TOOLS="Read,Write"\n' });
    expect(stderr).toMatch(/set this line in \.ralphrc \(ALLOWED_TOOLS came from \.ralphrc:\d+\)/);
  });
});
