import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCommand, splitCommandList, splitWords } from '../../../lib/verify/command-line.js';

describe('planCommand', () => {
  it.each([
    ['npm test', ['npm', 'test']],
    ['  vitest   run  ', ['vitest', 'run']],
    ['python3 -m pytest -k "add or sub"', ['python3', '-m', 'pytest', '-k', 'add or sub']],
    ["pytest -k 'not slow' tests/unit", ['pytest', '-k', 'not slow', 'tests/unit']],
    ['go test ./... -run TestA', ['go', 'test', './...', '-run', 'TestA']],
    ['eslint --ext .ts,.tsx src', ['eslint', '--ext', '.ts,.tsx', 'src']],
    ['echo a\\ b "q\\"uote" \'$HOME\'', ['echo', 'a b', 'q"uote', '$HOME']],
    ['cargo test -- --nocapture', ['cargo', 'test', '--', '--nocapture']],
    ['jest --testNamePattern=a=b', ['jest', '--testNamePattern=a=b']],
  ])('runs %j directly as argv', (command, argv) => {
    expect(planCommand(command)).toEqual({ argv, shell: false });
  });

  it.each([
    'npm run build && npm test',
    'pytest | tee out.txt',
    'npm test; echo done',
    'make test > log',
    'CI=1 npm test',
    'pytest $PYTEST_ARGS',
    'echo "$HOME"',
    'pytest tests/*.py',
    'ls ~/x',
    'npm test # with a comment',
    'echo `date`',
    'npm test &',
    "echo 'unterminated",
    '(cd sub && make)',
  ])('runs %j through sh -c', (command) => {
    expect(planCommand(command)).toEqual({ argv: ['sh', '-c', command], shell: true });
  });

  it('keeps single-quoted words exactly (property)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '$', '|', '&', ';', '"', '*', '\\', '-', '='), minLength: 1 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        const command = ['run', ...words.map((w) => `'${w}'`)].join(' ');
        expect(splitWords(command)).toEqual(['run', ...words]);
      }),
    );
  });
});

describe('splitCommandList', () => {
  it('splits QUALITY_GATES on commas and newlines, trimming and dropping empties', () => {
    expect(splitCommandList('npm run lint, npm run typecheck,,\n  cargo clippy  \n')).toEqual(['npm run lint', 'npm run typecheck', 'cargo clippy']);
  });

  it('keeps commas inside quotes and brackets with their command', () => {
    expect(splitCommandList(`eslint --ext '.ts,.tsx' src, pytest -k "a,b", ls {a,b}`)).toEqual(["eslint --ext '.ts,.tsx' src", 'pytest -k "a,b"', 'ls {a,b}']);
  });

  it('is empty for an empty value', () => {
    expect(splitCommandList('')).toEqual([]);
    expect(splitCommandList(' , ')).toEqual([]);
  });
});
