// Transcripts have a size cap: the real `bin/ralph` against a fake Claude that prints a 6 MB
// line keeps at most TRANSCRIPT_MAX_BYTES of it in the loop's output log (first and last half,
// a marker where the middle was cut), while the analysis still reads the whole stream: the
// result after the flood is read and the run completes. Uses the built dist/ (npm run build).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude } from '../../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../../helpers/loop-harness.js';
import { runCli } from '../../helpers/run-cli.js';
import { ralphProjectTree, tmpProject } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const CAP = 1024 * 1024;

const cleanups = useCleanups();

describe('the transcript cap', () => {
  it('keeps at most TRANSCRIPT_MAX_BYTES of a flood, and the result after it is still read', async () => {
    const project = tmpProject(
      ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}TRANSCRIPT_MAX_BYTES=${CAP}\n`, '.ralph/fix_plan.md': '# Fix Plan\n- [ ] flood\n' }),
      { git: true },
    );
    cleanups.push(() => project.cleanup());
    const fake = withFakeClaude({ calls: [{ garbage: 'hugeLine', hugeLineBytes: 6 * 1024 * 1024, tickFixPlan: 'all', writeFiles: { 'src/a.txt': 'a\n' } }] });
    cleanups.push(() => fake.cleanup());

    const result = await runCli('ralph', ['--max-loops', '2'], { cwd: project.dir, env: fake.env });

    expect(result.code, result.stderr.slice(-1500)).toBe(0);
    const logs = project.path('.ralph/logs');
    const outputs = readdirSync(logs).filter((name) => name.startsWith('claude_output_') && !name.includes('stderr'));
    expect(outputs).toHaveLength(1);
    const file = join(logs, outputs[0]!);
    expect(statSync(file).size).toBeLessThanOrEqual(CAP + 512);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/\[ralph: \d+ bytes of output cut here; TRANSCRIPT_MAX_BYTES keeps the first and last 524288 bytes\]/);
    // The tail kept the result line.
    expect(text).toContain('"type":"result"');
  }, 120_000);
});
