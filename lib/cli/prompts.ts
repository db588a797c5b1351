// The prompt library for interactive commands (ralph-enable's wizard, ralph-import's issue
// menu). Questions go to stderr so stdout stays clean for values (#130); answers are read a
// line at a time from stdin, whether it is a terminal or a pipe; at end of input every
// question takes its default, so a closed stdin can never hang or loop.

import { createInterface, type Interface } from 'node:readline';

export interface PromptIO {
  input: NodeJS.ReadableStream;
  output: { write(text: string): unknown };
}

export interface Choice<T> {
  label: string;
  value: T;
}

export interface Prompter {
  /** The raw answer line (trimmed), or undefined at end of input. */
  readAnswer(question: string): Promise<string | undefined>;
  ask(question: string, defaultValue: string): Promise<string>;
  confirm(question: string, defaultYes: boolean): Promise<boolean>;
  askInteger(question: string, range: { min: number; max?: number; defaultValue: number }): Promise<number>;
  /** A toggle list: numbers toggle items, an empty line accepts. */
  selectMany<T>(question: string, choices: ReadonlyArray<Choice<T> & { checked: boolean }>): Promise<T[]>;
  /** A numbered list; empty answer or end of input picks defaultIndex. */
  selectOne<T>(question: string, choices: ReadonlyArray<Choice<T>>, defaultIndex?: number): Promise<T | undefined>;
  say(text: string): void;
  close(): void;
}

export function createPrompter(io: PromptIO): Prompter {
  const lines = createLineQueue(io.input);
  const say = (text: string) => void io.output.write(`${text}\n`);
  const readAnswer = async (question: string) => {
    io.output.write(question);
    const line = await lines.next();
    return line?.trim();
  };

  const prompter: Prompter = {
    readAnswer,
    say,
    async ask(question, defaultValue) {
      const answer = await readAnswer(defaultValue ? `${question} [${defaultValue}]: ` : `${question}: `);
      return answer ? answer : defaultValue;
    },
    async confirm(question, defaultYes) {
      for (;;) {
        const answer = await readAnswer(`${question} ${defaultYes ? '[Y/n]' : '[y/N]'} `);
        if (answer === undefined || answer === '') return defaultYes;
        if (/^(y|yes)$/i.test(answer)) return true;
        if (/^(n|no)$/i.test(answer)) return false;
        say('Please answer y or n.');
      }
    },
    async askInteger(question, { min, max, defaultValue }) {
      const range = max === undefined ? `${min} or more` : `${min}-${max}`;
      for (;;) {
        const answer = await readAnswer(`${question} (${range}) [${defaultValue}]: `);
        if (answer === undefined || answer === '') return defaultValue;
        const value = Number(answer);
        if (/^\d+$/.test(answer) && value >= min && (max === undefined || value <= max)) return value;
        say(max === undefined ? `Please enter a whole number, ${min} or more.` : `Please enter a whole number from ${min} to ${max}.`);
      }
    },
    async selectMany(question, choices) {
      const checked = choices.map((choice) => choice.checked);
      for (;;) {
        say(question);
        choices.forEach((choice, i) => say(`  ${i + 1}) [${checked[i] ? 'x' : ' '}] ${choice.label}`));
        const answer = await readAnswer('Numbers to toggle (e.g. 1 3), Enter to accept: ');
        if (answer === undefined || answer === '') break;
        for (const token of answer.split(/[\s,]+/)) {
          const index = Number(token) - 1;
          if (Number.isInteger(index) && index >= 0 && index < choices.length) checked[index] = !checked[index];
          else say(`Ignoring "${token}": not one of 1-${choices.length}.`);
        }
      }
      return choices.filter((_, i) => checked[i]).map((choice) => choice.value);
    },
    async selectOne(question, choices, defaultIndex = 0) {
      say(question);
      choices.forEach((choice, i) => say(`  ${i + 1}) ${choice.label}`));
      for (;;) {
        const answer = await readAnswer(`Choose 1-${choices.length} [${defaultIndex + 1}]: `);
        if (answer === undefined || answer === '') return choices[defaultIndex]?.value;
        const index = Number(answer) - 1;
        if (Number.isInteger(index) && index >= 0 && index < choices.length) return choices[index]?.value;
        say(`Please enter a number from 1 to ${choices.length}.`);
      }
    },
    close: () => lines.close(),
  };
  return prompter;
}

interface LineQueue {
  next(): Promise<string | undefined>;
  close(): void;
}

// readline's question() cannot tell "end of input" from "empty line"; a queue of lines plus
// a closed flag can.
function createLineQueue(input: NodeJS.ReadableStream): LineQueue {
  const buffered: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  let reader: Interface | undefined;
  const start = () => {
    if (reader) return;
    reader = createInterface({ input, terminal: false, crlfDelay: Infinity });
    reader.on('line', (line) => {
      const resolve = waiting.shift();
      if (resolve) resolve(line);
      else buffered.push(line);
    });
    reader.on('close', () => {
      closed = true;
      for (const resolve of waiting.splice(0)) resolve(undefined);
    });
  };
  return {
    next() {
      start();
      const line = buffered.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close() {
      reader?.close();
      closed = true;
    },
  };
}
