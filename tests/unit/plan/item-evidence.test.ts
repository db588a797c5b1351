// Which items ask for evidence other than new content, read from their text.

import { describe, expect, it } from 'vitest';
import { asksForRevert, namesFile, needsNoCodeChange, shareTopic } from '../../../lib/plan/item-evidence.js';
import { closeVerifiedItems, firstCompletions } from '../../../lib/plan/verified-items.js';

describe('item evidence', () => {
  it.each([
    ['Verify feature X works end to end', true],
    ['**Check** that the CLI still starts', true],
    ['Confirm the migration ran', true],
    ['Make sure the docs build', true],
    ['Write a test that verifies the parser', false],
    ['Add a check for empty input', false],
    ['Implement verification of signatures', false],
  ])('needsNoCodeChange(%j) is %s', (text, expected) => {
    expect(needsNoCodeChange(text)).toBe(expected);
  });

  it('asksForRevert reads revert, roll back, undo and back out', () => {
    for (const text of ['Revert the faster parser commit', 'Roll back the cache change', 'undo the rename', 'Back out the migration'])
      expect(asksForRevert(text)).toBe(true);
    expect(asksForRevert('Add the rollout flag')).toBe(false);
  });

  it('namesFile needs the file name as a word, with or without its folder', () => {
    expect(namesFile('Record the build commands in .ralph/AGENT.md', 'AGENT.md')).toBe(true);
    expect(namesFile('update `agent.md` with the test command', 'AGENT.md')).toBe(true);
    expect(namesFile('Write MYAGENT.md', 'AGENT.md')).toBe(false);
    expect(namesFile('Split the big items of fix_plan.md.', 'fix_plan.md')).toBe(true);
  });

  it('shareTopic needs a word of four letters or more that is not a common verb', () => {
    expect(shareTopic('add user import (csv and json)', 'add user import: the csv reader')).toBe(true);
    expect(shareTopic('add the parser', 'add the printer')).toBe(false);
  });

  it('closeVerifiedItems closes the named open items only', () => {
    const memory = {
      open: [
        { key: 'verify x', text: 'Verify X', position: 0 },
        { key: 'write y', text: 'Write Y', position: 1 },
      ],
    };
    expect(closeVerifiedItems(memory, ['Verify X'])).toEqual({ memory: { open: [memory.open[1]] }, closedKeys: ['verify x'] });
  });

  it('firstCompletions counts an item completed again (ticked, unticked, ticked) once', () => {
    const done = new Set<string>();
    expect(firstCompletions(done, ['a', 'b'])).toEqual(['a', 'b']);
    expect(firstCompletions(done, ['a', 'c'])).toEqual(['c']);
  });
});
