// Guards that tell stuck from slow, the honest half: ralph's loop (run in the test's process,
// tests/helpers/ralph-in-process.ts) against scripted agents that each do honest work on a small
// plan in a way an earlier version of the guards took for being stuck. Each must end done (exit
// 0). The hostile half, which must still halt, is hostile-work.test.ts. A second `ralph` after a
// run is the built bin/ralph (npm run build).

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFakeClaude, type FakeCallScript } from '../../helpers/fake-claude.js';
import { runCli } from '../../helpers/run-cli.js';
import { expectDone, runScripted, tail } from '../../helpers/scripted-run.js';
import { GIT_TEST_ENV } from '../../helpers/tmp-project.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const working = { STATUS: 'IN_PROGRESS', EXIT_SIGNAL: false };
const complete = { STATUS: 'COMPLETE', EXIT_SIGNAL: true };
/** A test command whose suite passes: two tests, as jest reports them. */
// The project's test suite: a sh script that prints a runner's summary line (sh, not Node: a
// gate runs in every loop, and a Node start costs some 70 ms of CPU).
const PASSING_SUITE = "echo 'Tests:       2 passed, 2 total'\n";
const GATE_RC = 'TEST_COMMAND="sh test.sh"\n';

describe('an item that needs no code change is closed by a passing gate in the loop that ticks it', () => {
  it('the only item: "Verify …" ticked after the tests pass', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Verify the login feature works end to end\n',
      files: { 'test.sh': PASSING_SUITE, 'src/login.js': 'export const login = () => true;\n' },
      rc: GATE_RC,
      calls: [{ resultText: 'Ran the test suite: login works end to end. Nothing to change.', tickFixPlan: 1, statusBlock: complete }],
    });
    expectDone(ran, 1);
    expect(ran.log).toContain('closed by the verification gate');
    // The plan's memory beside the ledger knows it is done: the next ralph calls no agent.
    const fake = withFakeClaude({ calls: [{ resultText: 'Nothing to do.', statusBlock: working }] });
    cleanups.push(() => fake.cleanup());
    const again = await runCli('ralph', ['--max-loops', '2'], { cwd: ran.projectDir, env: fake.env });
    expect({ code: again.code, calls: fake.runs().length }, again.stderr.slice(-1500)).toEqual({ code: 0, calls: 0 });
  });

  it('after an item with code: "Verify the greeting end to end" ticked in a loop of its own', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Add a greeting to src/greet.js\n- [ ] Verify the greeting works end to end\n',
      files: { 'test.sh': PASSING_SUITE },
      rc: GATE_RC,
      calls: [
        { writeFiles: { 'src/greet.js': "export const greet = () => 'hi';\n" }, tickFixPlan: 1, statusBlock: working },
        { resultText: 'Checked: the greeting works end to end.', tickFixPlan: 1, statusBlock: complete },
      ],
    });
    expectDone(ran, 2);
  });

  it('"Check that the CLI still starts (no code change expected)": one loop looks, the next ticks it', async () => {
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Check that the CLI still starts (no code change expected)\n',
      files: { 'test.sh': PASSING_SUITE, 'cli.js': "console.log('usage');\n" },
      rc: GATE_RC,
      calls: [
        { resultText: 'Started the CLI and read its help; running the suite next.', statusBlock: working },
        { resultText: 'The suite passes and the CLI starts.', tickFixPlan: 1, statusBlock: working },
      ],
    });
    expectDone(ran, 2);
  });

  it('"Confirm the nightly export still runs": two loops look, the third ticks it (the breaker would open at that loop)', async () => {
    const look = (what: string): FakeCallScript => ({ resultText: `Looked at ${what}; nothing to change so far.`, statusBlock: working });
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Confirm the nightly export still runs\n',
      files: { 'test.sh': PASSING_SUITE, 'export.js': "console.log('export');\n" },
      rc: GATE_RC,
      calls: [look('the export script'), look('its schedule'), { resultText: 'The suite passes; the export runs.', tickFixPlan: 1, statusBlock: complete }],
    });
    expectDone(ran, 3);
  });
});

it('a loop that reverts a bad commit with git revert, as the plan asks, completes its item', async () => {
  const revert = 'git -c user.name=Agent -c user.email=agent@example.invalid revert --no-edit HEAD';
  const ran = await runScripted(cleanups, {
    plan: '# Fix Plan\n- [ ] Try the faster parser in src/parser.js\n- [ ] Revert the faster parser commit (it broke the build)\n',
    files: { 'src/parser.js': 'export const parse = slowParse;\n' },
    rc: 'ALLOWED_TOOLS="Write,Read,Edit,Bash(git *)"\n',
    calls: [
      {
        writeFiles: { 'src/parser.js': 'export const parse = fastParse;\n' },
        gitAdd: ['src/parser.js'],
        gitCommit: 'faster parser',
        tickFixPlan: 1,
        statusBlock: working,
      },
      { steps: [{ tool: 'Bash', input: { command: revert }, exec: true }], tickFixPlan: 1, statusBlock: complete },
    ],
  });
  expectDone(ran, 2);
  // The revert really ran: the file is back as it was, in a commit of its own.
  expect(ran.repo.git('log', '--format=%s', '-1')).toContain('Revert "faster parser"');
});

it('a planning loop that splits an item into two sub-items, then does both, ends done (no completion_conflict)', async () => {
  const split = '# Fix Plan\n- [ ] Add user import: the CSV reader\n- [ ] Add user import: the JSON reader\n';
  const ran = await runScripted(cleanups, {
    plan: '# Fix Plan\n- [ ] Add user import (CSV and JSON)\n',
    calls: [
      { resultText: 'Split the import into two items.', writeFiles: { '.ralph/fix_plan.md': split }, statusBlock: working },
      { writeFiles: { 'src/csv.js': 'export const readCsv = () => [];\n' }, tickFixPlan: 1, statusBlock: working },
      { writeFiles: { 'src/json.js': 'export const readJson = () => [];\n' }, tickFixPlan: 1, statusBlock: complete },
    ],
  });
  expectDone(ran, 3);
  expect(ran.log).not.toContain('the agent removed');
});

describe('failing tests fixed one per loop (3, 2, 1, 0): a falling failure count is progress', () => {
  // Three tests fail until src/fix-<name>.txt exists; the script reports the counts only, no names.
  const suite = (summary: 'jest' | 'pytest'): string => `
fixed=0
for name in a b c; do [ -e "src/fix-$name.txt" ] && fixed=$((fixed + 1)); done
failed=$((3 - fixed)) passed=$((2 + fixed))
counts="$passed passed"
[ "$failed" -eq 0 ] || counts="$failed failed, $counts"
${summary === 'jest' ? 'echo "Tests:       $counts, $((failed + passed)) total"' : 'echo "==== $counts in 0.12s ===="'}
[ "$failed" -eq 0 ]
`;
  const fixOne = (name: string, tick: boolean): FakeCallScript => ({
    writeFiles: { [`src/fix-${name}.txt`]: `fixed ${name}\n` },
    ...(tick ? { tickFixPlan: 1 } : {}),
    statusBlock: tick ? complete : working,
  });
  const calls = [
    { writeFiles: { 'src/notes.txt': 'the three failures come from the date parser\n' }, statusBlock: working },
    fixOne('a', false),
    fixOne('b', false),
    fixOne('c', true),
  ];

  for (const summary of ['jest', 'pytest'] as const) {
    it(`with ${summary}'s summary line`, async () => {
      const ran = await runScripted(cleanups, {
        plan: '# Fix Plan\n- [ ] Make the three failing date tests pass\n',
        files: { 'test.sh': suite(summary) },
        rc: GATE_RC,
        calls,
      });
      expectDone(ran, 4);
      expect(ran.log).not.toContain('Same failing tests');
    });
  }
});

it('one large item ported part by part, new content and one more passing test in each of 9 loops, is not stalled', async () => {
  // The suite has a test per ported part: ralph's own gate sees it grow.
  const suite = `
parts=0
for entry in src/port/* src/port/.keep; do [ -e "$entry" ] && parts=$((parts + 1)); done
echo "Tests:       $((parts + 1)) passed, $((parts + 1)) total"
`;
  const calls = Array.from({ length: 9 }, (_, i): FakeCallScript => ({
    writeFiles: { [`src/port/part-${i + 1}.js`]: `export const part${i + 1} = ${i + 1};\n` },
    ...(i === 8 ? { tickFixPlan: 1 } : {}),
    statusBlock: i === 8 ? complete : working,
  }));
  const ran = await runScripted(cleanups, {
    plan: '# Fix Plan\n- [ ] Port the legacy billing module (nine parts)\n',
    files: { 'test.sh': suite, 'src/port/.keep': '' },
    rc: GATE_RC,
    calls,
  });
  expectDone(ran, 9);
});

describe("work outside the project's own files is measured as progress", () => {
  it('in a monorepo folder beside the project (../../libs/shared, listed in WORK_DIRS)', async () => {
    const calls = [1, 2, 3].map((n): FakeCallScript => ({
      writeFiles: { [`../../libs/shared/src/part-${n}.js`]: `export const part${n} = ${n};\n` },
      tickFixPlan: 1,
      statusBlock: n === 3 ? complete : working,
    }));
    const ran = await runScripted(cleanups, {
      projectIn: 'apps/web',
      repoFiles: { 'libs/shared/src/index.js': 'export {};\n' },
      plan: '# Fix Plan\n- [ ] Add the date helpers to libs/shared\n- [ ] Add the money helpers to libs/shared\n- [ ] Add the text helpers to libs/shared\n',
      rc: 'WORK_DIRS="../../libs/shared"\n',
      calls,
    });
    expectDone(ran, 3);
    expect(ran.log).toMatch(/files changed 1\b/);
  });

  it("in a nested repository (vendor/lib) that ralph's git never enters", async () => {
    const calls = [1, 2, 3].map((n): FakeCallScript => ({
      writeFiles: { [`vendor/lib/src/part-${n}.js`]: `export const part${n} = ${n};\n` },
      tickFixPlan: 1,
      statusBlock: n === 3 ? complete : working,
    }));
    const ran = await runScripted(cleanups, {
      plan: '# Fix Plan\n- [ ] Patch vendor/lib: parse dates\n- [ ] Patch vendor/lib: parse money\n- [ ] Patch vendor/lib: parse text\n',
      calls,
      setup: (_repo, projectDir) => {
        const lib = join(projectDir, 'vendor/lib');
        mkdirSync(join(lib, 'src'), { recursive: true });
        writeFileSync(join(lib, 'src/index.js'), 'export {};\n');
        const git = (...args: string[]) => execFileSync('git', args, { cwd: lib, env: { ...process.env, ...GIT_TEST_ENV } });
        git('init', '-q', '-b', 'main');
        git('add', '-A');
        git('commit', '-q', '-m', 'vendored');
      },
    });
    expectDone(ran, 3);
  });
});

it('an item whose work is .ralph/AGENT.md itself ("record the build commands") completes', async () => {
  const ran = await runScripted(cleanups, {
    plan: '# Fix Plan\n- [ ] Record the build commands in .ralph/AGENT.md\n',
    calls: [{ appendFiles: { '.ralph/AGENT.md': '## Build\n- npm run build\n- npm test\n' }, tickFixPlan: 1, statusBlock: complete }],
  });
  expectDone(ran, 1);
});

it('a known, unchanged error quoted in every loop while real work proceeds is not "the same error repeated"', async () => {
  const known = 'Error: connect ECONNREFUSED 127.0.0.1:5432 (known: the staging database is down; unrelated to this work)';
  const calls = Array.from({ length: 6 }, (_, i): FakeCallScript => ({
    resultText: `Wrote part ${i + 1} of the report.\n${known}`,
    writeFiles: { [`src/report-${i + 1}.js`]: `export const section${i + 1} = ${i + 1};\n` },
    ...(i % 2 === 1 ? { tickFixPlan: 1 } : {}),
    statusBlock: i === 5 ? complete : working,
  }));
  const ran = await runScripted(cleanups, {
    plan: '# Fix Plan\n- [ ] Report: summary\n- [ ] Report: details\n- [ ] Report: appendix\n',
    calls,
  });
  expectDone(ran, 6);
  expect(ran.log, tail(ran)).not.toContain('Same error repeated');
});
