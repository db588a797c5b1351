// A session id reaches argv only as the value of --resume, so it must have the shape of one: an
// id the agent wrote into .ralph/.claude_session_id, or reported in its stream-json output, that
// is no UUID is discarded with a warning and never appears in the agent's argv. Each run is
// ralph's loop in the test's process (tests/helpers/ralph-in-process.ts).

import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runRalphInProcess } from '../../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const HOSTILE = '--dangerously-skip-permissions';
const cleanups = useCleanups();

function setup(scenario: unknown): { p: TmpProject; f: FakeClaude } {
  const p = tmpProject(ralphProjectTree({ '.ralphrc': FAST_LOOP_RC, '.ralph/fix_plan.md': '- [ ] a\n- [ ] b\n' }), { git: true });
  const f = withFakeClaude(scenario as never);
  cleanups.push(
    () => p.cleanup(),
    () => f.cleanup(),
  );
  return { p, f };
}

const work = (n: number) => ({ writeFiles: { [`f${n}.txt`]: `${n}\n` }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } });

describe('session ids from files the agent can write', () => {
  it.each([
    ['the JSON form', JSON.stringify({ session_id: HOSTILE, timestamp: new Date().toISOString() })],
    ['the legacy plain-text form', `${HOSTILE}\n`],
  ])('a flag in .ralph/.claude_session_id (%s) never reaches argv', async (_name, content) => {
    const { p, f } = setup({ calls: [work(1)] });
    writeFileSync(p.path('.ralph/.claude_session_id'), content);
    const r = await runRalphInProcess(p.dir, ['--max-loops', '1'], f.env);
    expect(r.code).toBe(3);
    const [run] = f.runs();
    expect(run!.argv).not.toContain(HOSTILE);
    expect(run!.argv).not.toContain('--resume');
    expect(r.stderr).toContain('Discarded .ralph/.claude_session_id: "--dangerously-skip-permissions" is not a Claude session id');
  });
});

describe('session ids the agent reports', () => {
  it('a flag as the stream-json session_id is not saved and never reaches the next call', async () => {
    const { p, f } = setup({ calls: [{ ...work(1), sessionId: HOSTILE }, work(2)] });
    const r = await runRalphInProcess(p.dir, ['--max-loops', '2'], f.env);
    expect(r.code).toBe(3);
    const runs = f.runs();
    expect(runs).toHaveLength(2);
    expect(runs[0]!.sessionId).toBe(HOSTILE);
    expect(runs[1]!.argv).not.toContain(HOSTILE);
    expect(runs[1]!.argv).not.toContain('--resume');
    expect(r.stderr).toContain('Discarded the session id the agent reported: "--dangerously-skip-permissions"');
  });

  it('a valid reported id is still resumed (the check does not break continuity)', async () => {
    const { p, f } = setup({ calls: [work(1), work(2)] });
    const r = await runRalphInProcess(p.dir, ['--max-loops', '2'], f.env);
    expect(r.code).toBe(3);
    const runs = f.runs();
    const resume = runs[1]!.argv[runs[1]!.argv.indexOf('--resume') + 1];
    expect(resume).toBe(runs[0]!.sessionId);
    expect(r.stderr).not.toContain('Discarded');
  });
});
