import { describe, expect, it } from 'vitest';
import { extractPrdTasks } from '../../../lib/tasks/prd-tasks.js';

describe('extractPrdTasks', () => {
  it('turns open and checked checkboxes and numbered items into open tasks', () => {
    expect(extractPrdTasks('# PRD\n- [ ] a\n- [x] b\n\n1. c\n')).toEqual(['- [ ] a', '- [ ] b', '- [ ] c']);
  });

  it('accepts * bullets, [X] and loose spacing, and keeps indentation', () => {
    expect(extractPrdTasks('* [X] upper\n  - [ ]   spaced\n-[ ] tight')).toEqual(['- [ ] upper', '  - [ ] spaced', '- [ ] tight']);
  });

  it('puts checkbox items before numbered items', () => {
    expect(extractPrdTasks('1. first number\n- [ ] box')).toEqual(['- [ ] box', '- [ ] first number']);
  });

  it('ignores headings and paragraphs', () => {
    expect(extractPrdTasks('## Tasks\ntext\n\nmore text')).toEqual([]);
  });

  it('imports top-level plain bullets when the document has no checkbox and no numbered item', () => {
    expect(extractPrdTasks('# PRD\n- Add a login page\n  - with a form\n* Send a welcome mail\n+ Log out\n-\n')).toEqual([
      '- [ ] Add a login page',
      '- [ ] Send a welcome mail',
      '- [ ] Log out',
    ]);
  });

  it('ignores plain bullets beside checkbox or numbered items (they are notes there)', () => {
    expect(extractPrdTasks('- [ ] box\n- a note')).toEqual(['- [ ] box']);
    expect(extractPrdTasks('1. step\n- a note')).toEqual(['- [ ] step']);
  });

  it('takes at most 20 numbered items and 30 tasks in all', () => {
    const numbered = Array.from({ length: 25 }, (_, i) => `${i + 1}. n${i}`).join('\n');
    expect(extractPrdTasks(numbered)).toHaveLength(20);
    const boxes = Array.from({ length: 40 }, (_, i) => `- [ ] b${i}`).join('\n');
    expect(extractPrdTasks(`${boxes}\n${numbered}`)).toHaveLength(30);
  });

  it('reads CRLF documents', () => {
    expect(extractPrdTasks('- [ ] a\r\n1. b\r\n')).toEqual(['- [ ] a', '- [ ] b']);
  });
});
