// The loop context — the previous result (secret-looking text included), the failing tests, the
// open items — goes to the agent on stdin after the prompt, redacted, and never into argv (every
// local user can read argv with ps; CLI 2.1.x ignores a new --append-system-prompt on a resumed
// session). Checked on a resumed and on a fresh call, through ralph's loop
// (in the test's process, tests/helpers/ralph-in-process.ts).

import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { runRalphInProcess } from '../helpers/ralph-in-process.js';
import { ralphProjectTree, tmpProject } from '../helpers/tmp-project.js';
import { loopContextIn } from '../integration/verify-loop/verify-loop-fixture.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const FAILING_TEST = 'parser_rejects_empty_input';
const PROJECT_KEY = `sk-proj-${'Ab3'.repeat(16)}`;
const SERVER_TOKEN = `ghs_${'Zy9'.repeat(12)}`;
// A TAP report with one failing test, exit 1: the gate names the test in the next context.
const CHECK_SCRIPT = `process.stdout.write('TAP version 13\\n1..2\\nok 1 - parses numbers\\nnot ok 2 - ${FAILING_TEST}\\n'); process.exit(1);\n`;

describe('the loop context', () => {
  it.each([
    ['a resumed call', 'true'],
    ['a fresh call', 'false'],
  ])(
    'reaches %s on stdin, redacted, and no argv',
    async (_name, continuity) => {
      const fake: FakeClaude = withFakeClaude({
        calls: [
          {
            resultText: `Rotated ${PROJECT_KEY} and ${SERVER_TOKEN}; the parser is next.`,
            writeFiles: { 'src/parser.txt': 'v1' },
            statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
          },
          { writeFiles: { 'src/parser.txt': 'v2' }, statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false } },
        ],
      });
      cleanups.push(() => fake.cleanup());
      const rc = `${FAST_LOOP_RC}SESSION_CONTINUITY=${continuity}\nTEST_COMMAND="node check.js"\n`;
      const project = tmpProject(ralphProjectTree({ '.ralphrc': rc, '.ralph/fix_plan.md': '- [ ] fix the parser\n', 'check.js': CHECK_SCRIPT }), { git: true });
      cleanups.push(() => project.cleanup());

      const result = await runRalphInProcess(project.dir, ['--max-loops', '2'], fake.env);

      expect(result.code, result.stderr).toBe(3);
      const [first, second] = fake.runs();
      expect(second!.argv.includes('--resume')).toBe(continuity === 'true');
      expect(first!.stdin!.startsWith('# Task\nWork through fix_plan.md.\n')).toBe(true);
      const context = loopContextIn(second!.stdin);
      expect(context).toMatch(/^Loop #2\. Remaining tasks: 1\./);
      expect(context).toContain('Previous: Rotated [REDACTED] and [REDACTED]; the parser is next.');
      expect(context).toContain(FAILING_TEST);
      expect(second!.stdin).not.toContain(PROJECT_KEY);
      expect(second!.stdin).not.toContain(SERVER_TOKEN);
      for (const run of [first!, second!]) {
        const argv = run.argv.join('\n');
        expect(run.argv).not.toContain('--append-system-prompt');
        for (const text of ['Loop #', 'Remaining tasks', 'Rotated', FAILING_TEST, 'fix the parser', PROJECT_KEY]) expect(argv).not.toContain(text);
      }
    },
    60_000,
  );
});
