import { describe, expect, it } from 'vitest';
import { detectQuestions } from '../../../lib/analysis/question-detection.js';

describe('detectQuestions', () => {
  it.each([
    'Should I continue with the migration?',
    'Would you like me to refactor this?',
    'Do you want tests for it?',
    'Which approach is better here?',
    'Which option should we take?',
    'How should errors be reported?',
    'What should the default be?',
    'Shall I proceed?',
    'Do you prefer tabs?',
    'Can you clarify the requirement?',
    'Could you confirm the API shape?',
    'What do you think about this design?',
    'Please confirm before I delete files.',
    'I need clarification on the spec.',
    'Awaiting your input on the schema.',
    'Waiting for your response.',
    'Tell me your preference.',
  ])('%j is a question', (line) => {
    expect(detectQuestions(line)).toMatchObject({ askingQuestions: true });
  });

  it.each(['Implemented the parser and all tests pass.', 'The shoulder case is handled.', 'Wouldyou is not a word.', ''])('%j is not a question', (line) => {
    expect(detectQuestions(line)).toEqual({ askingQuestions: false, questionCount: 0 });
  });

  it('sums the matching lines of every pattern (the Bash count)', () => {
    const text = 'Should I do A?\nshould i do B?\nWhich option and which approach?\nDone.';
    expect(detectQuestions(text).questionCount).toBe(4);
  });
});
