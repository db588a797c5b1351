// The wizard's prompt library over a real stream: answers, defaults, retries, end of input.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPrompter } from '../../../lib/cli/prompts.js';

function prompterWith(lines: string[], end = true) {
  const input = new PassThrough();
  let output = '';
  const prompter = createPrompter({ input, output: { write: (text: string) => (output += text) } });
  input.write(lines.map((line) => `${line}\n`).join(''));
  if (end) input.end();
  return { prompter, output: () => output };
}

describe('createPrompter', () => {
  it('returns answers, or the default for an empty line', async () => {
    const { prompter, output } = prompterWith(['my-app', '']);
    expect(await prompter.ask('Project name', 'detected')).toBe('my-app');
    expect(await prompter.ask('Label', 'ralph-task')).toBe('ralph-task');
    expect(output()).toBe('Project name [detected]: Label [ralph-task]: ');
  });

  it('asks again after an invalid answer and accepts y/n words', async () => {
    const { prompter, output } = prompterWith(['maybe', 'YES', '7', '501', '250']);
    expect(await prompter.confirm('Continue?', false)).toBe(true);
    expect(await prompter.askInteger('Calls', { min: 10, max: 500, defaultValue: 100 })).toBe(250);
    expect(output()).toContain('Please answer y or n.');
    expect(output().match(/whole number from 10 to 500/g)).toHaveLength(2);
  });

  it('toggles a multi-select list until an empty line', async () => {
    const { prompter, output } = prompterWith(['1 3', '9', '']);
    const picked = await prompter.selectMany('Sources?', [
      { label: 'beads', value: 'beads', checked: true },
      { label: 'GitHub', value: 'github', checked: false },
      { label: 'PRD', value: 'prd', checked: false },
    ]);
    expect(picked).toEqual(['prd']);
    expect(output()).toContain('  3) [x] PRD');
    expect(output()).toContain('Ignoring "9"');
  });

  it('takes defaults at end of input instead of hanging', async () => {
    const { prompter } = prompterWith([]);
    expect(await prompter.ask('Name', 'dflt')).toBe('dflt');
    expect(await prompter.confirm('Continue?', false)).toBe(false);
    expect(await prompter.askInteger('Calls', { min: 10, max: 500, defaultValue: 100 })).toBe(100);
    expect(await prompter.selectMany('x', [{ label: 'a', value: 'a', checked: true }])).toEqual(['a']);
    expect(
      await prompter.selectOne(
        'y',
        [
          { label: 'a', value: 'a' },
          { label: 'b', value: 'b' },
        ],
        1,
      ),
    ).toBe('b');
    expect(await prompter.readAnswer('raw: ')).toBeUndefined();
  });

  it('waits for input that arrives later', async () => {
    const stream = new PassThrough();
    const late = createPrompter({ input: stream, output: { write: () => true } });
    const answer = late.ask('Name', 'd');
    stream.write('typed later\n');
    expect(await answer).toBe('typed later');
    late.close();
  });
});
