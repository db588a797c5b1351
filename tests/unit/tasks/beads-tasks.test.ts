import { describe, expect, it } from 'vitest';
import { parseBeadsJson, parseBeadsText } from '../../../lib/tasks/beads-tasks.js';

describe('parseBeadsJson', () => {
  it('keeps open items with an id and a title', () => {
    const json = JSON.stringify([
      { id: 'bd-a1', title: 'Open one', status: 'open' },
      { id: 'bd-a2', title: 'Closed', status: 'closed' },
      { id: '', title: 'No id', status: 'open' },
      { id: 'bd-a3', title: '  ', status: 'open' },
      { id: 'bd-a4', title: 'In progress', status: 'in_progress' },
    ]);
    expect(parseBeadsJson(json)).toEqual([
      { id: 'bd-a1', title: 'Open one' },
      { id: 'bd-a4', title: 'In progress' },
    ]);
  });

  it('returns undefined for empty or non-array output (the text fallback then runs)', () => {
    expect(parseBeadsJson('')).toBeUndefined();
    expect(parseBeadsJson('not json')).toBeUndefined();
    expect(parseBeadsJson('{"id":"bd-1"}')).toBeUndefined();
  });
});

describe('parseBeadsText', () => {
  it('takes the first word-id and the text after the last " - "', () => {
    expect(parseBeadsText('bd-a1 [P1] [task] open - Fix - the login\nbd-b2 [P2] [bug] closed - Done\nnoise line\n')).toEqual([
      { id: 'bd-a1', title: 'the login' },
    ]);
  });
});
