// Terminal control sequences the agent prints — a window title (OSC 0), a clipboard write
// (OSC 52), a disguised hyperlink (OSC 8), a screen clear, cursor movement — never reach the
// terminal through --live, nor .ralph/live.log (the tmux pane follows it), while ralph's own
// colours still do; log lines that quote the agent are cleaned the same way. The real `ralph`
// runs under a pseudo-terminal, so its logger colours.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeClaude } from '../helpers/fake-claude.js';
import { FAST_LOOP_RC } from '../helpers/loop-harness.js';
import { binPath } from '../helpers/run-cli.js';
import { ralphProjectTree, tmpProject, type TmpProject } from '../helpers/tmp-project.js';

const DRIVER = fileURLToPath(new URL('../e2e/bootstrap/pty-driver.py', import.meta.url));

let project: TmpProject | undefined;
let fake: FakeClaude | undefined;
afterEach(() => {
  project?.cleanup();
  fake?.cleanup();
});

const HOSTILE = [
  '\x1b]0;owned window title\x07',
  '\x1b]52;c;cm0gLXJmIH4K\x07',
  '\x1b]8;;https://evil.example/\x1b\\harmless link\x1b]8;;\x1b\\',
  '\x1b[2J\x1b[H',
  '\x1b[5A\x1b[2K',
  // An 8-bit CSI: the introducer goes, its parameters stay as plain text.
  '\u009b2J',
];

describe('terminal control sequences from the agent', () => {
  it('are stripped from --live output and live.log; ralph keeps its colours', () => {
    fake = withFakeClaude({
      calls: [
        {
          steps: [{ text: `before${HOSTILE.join('')}after` }, { tool: 'Bash', input: { command: `echo \x1b]0;t2\x07hi`, description: 'x' }, stdout: 'hi' }],
          resultText: `done \x1b]0;result title\x07`,
          writeFiles: { 'a.txt': 'a' },
          statusBlock: { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false },
        },
      ],
    });
    project = tmpProject(ralphProjectTree({ '.ralphrc': `${FAST_LOOP_RC}ALLOWED_TOOLS="Read,Write,Bash(echo *)"\n`, '.ralph/fix_plan.md': '- [ ] a\n' }), {
      git: true,
    });
    const { NO_COLOR: _noColor, ...env } = process.env;
    const spec = {
      argv: [process.execPath, binPath('ralph'), '--max-loops', '1', '--live', '--show-tool-args'],
      cwd: project.dir,
      env: { ...env, ...fake.env, TERM: 'xterm-256color' },
      steps: [],
      timeout: 30,
    };
    const result = JSON.parse(execFileSync('python3', [DRIVER, JSON.stringify(spec)], { encoding: 'utf8', timeout: 60_000 })) as {
      code: number;
      output: string;
    };

    expect(result.code, result.output).toBe(3);
    expect(fake.runs()).toHaveLength(1);
    const liveLog = readFileSync(project.path('.ralph/live.log'), 'utf8');
    for (const [where, text] of [
      ['terminal', result.output],
      ['live.log', liveLog],
    ] as const) {
      expect(text, where).toContain('beforeharmless link2Jafter');
      // No OSC of any kind, no screen clear, no cursor movement, no 8-bit CSI.
      expect(text, where).not.toMatch(/\x1b\]|\x1b\[2J|\x1b\[H|\x1b\[5A|\x1b\[2K|\u009b/);
      expect(text, where).not.toContain('owned window title');
    }
    // ralph's own log colours (the Bash tool's SUCCESS green, INFO blue) are still there.
    expect(result.output).toContain('\x1b[0;32m');
    expect(result.output).toContain('\x1b[0;34m');
    expect(liveLog).not.toContain('\x1b');
    // Log lines quote the agent (the analysis summary, a denied command): those are cleaned too.
    expect(result.output).toContain('done');
    expect(readFileSync(project.path('.ralph/logs/ralph.log'), 'utf8')).not.toContain('\x1b');
  }, 60_000);
});
