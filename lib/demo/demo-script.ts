// What `ralph --demo` runs: a tiny Node project with three tasks, and, for each task, the edits
// the built-in scripted agent makes for it. Both the project and the agent read this one script,
// so the plan and the work always match. Pure data.

export interface DemoStep {
  /** The task as fix_plan.md holds it (without the `- [ ] `). */
  task: string;
  /** Files the agent writes for it, relative to the project. */
  files: Record<string, string>;
  /** What the agent says it did. */
  report: string;
}

const GREET_V1 = `// Greets someone by name.
function greet(name) {
  return \`Hello, \${name}!\`;
}

module.exports = { greet };
`;

const GREET_V2 = `// Greets someone by name, or the world when no name is given.
function greet(name) {
  return \`Hello, \${name || 'world'}!\`;
}

module.exports = { greet };
`;

const TEST_V1 = `const test = require('node:test');
const assert = require('node:assert');
const { greet } = require('./greet.js');

test('greets by name', () => {
  assert.strictEqual(greet('Ralph'), 'Hello, Ralph!');
});
`;

const TEST_V2 = `${TEST_V1}
test('greets the world without a name', () => {
  assert.strictEqual(greet(), 'Hello, world!');
});
`;

export const DEMO_STEPS: readonly DemoStep[] = [
  {
    task: 'Add greet.js, which exports greet(name) returning "Hello, <name>!", with a test',
    files: { 'greet.js': GREET_V1, 'greet.test.js': TEST_V1 },
    report: 'Added greet.js and greet.test.js; the test passes.',
  },
  {
    task: 'Make greet() say "Hello, world!" when no name is given, with a test',
    files: { 'greet.js': GREET_V2, 'greet.test.js': TEST_V2 },
    report: 'greet() falls back to "world"; added a test for it.',
  },
  {
    task: 'Add a README.md section on how to use greet.js',
    files: { 'README.md': "# ralph demo\n\n## Usage\n\n```js\nconst { greet } = require('./greet.js');\ngreet('Ralph'); // \"Hello, Ralph!\"\n```\n" },
    report: 'Documented greet.js in README.md. Every task is done.',
  },
];

/** The demo project's files before the first loop (the .ralph/ files come from ralph's own templates). */
export const DEMO_PROJECT_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'ralph-demo', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  'smoke.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\n\ntest('the project loads', () => {\n  assert.ok(require('./package.json').name);\n});\n",
  'README.md': '# ralph demo\n',
};

/** The gate's command: node's own test runner, in TAP, which the gate reads test by test. */
export const DEMO_TEST_COMMAND = 'node --test --test-reporter=tap';

export const DEMO_PROMPT = `# ralph demo

This project was made by \`ralph --demo\`. Its agent is ralph's built-in scripted agent: it
calls no model and spends nothing. Each loop it does the first open task of
.ralph/fix_plan.md, ticks it and commits.
`;
