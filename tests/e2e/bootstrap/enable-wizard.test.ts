// ralph-enable: the wizard driven through a real pseudo-terminal, and through pipes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { binPath, runCli } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';

const DRIVER = fileURLToPath(new URL('./pty-driver.py', import.meta.url));

let project: TmpProject | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  project?.cleanup();
  clis?.cleanup();
});

interface PtyResult {
  code: number;
  output: string;
}

function runInPty(args: string[], cwd: string, env: Record<string, string>, steps: Array<[string, string]>): PtyResult {
  const spec = { argv: [process.execPath, binPath('ralph-enable'), ...args], cwd, env: { ...env, NO_COLOR: '1', TERM: 'dumb' }, steps, timeout: 20 };
  return JSON.parse(execFileSync('python3', [DRIVER, JSON.stringify(spec)], { encoding: 'utf8', timeout: 60_000 })) as PtyResult;
}

describe('ralph-enable wizard', () => {
  it('enables a project with tasks from gh, answering its questions in a terminal', () => {
    project = tmpProject({ 'package.json': '{"name":"widget","scripts":{"test":"vitest run"}}' }, { git: true });
    project.git('remote', 'add', 'origin', 'https://github.com/acme/widget.git');
    clis = withFakeTaskClis({
      gh: {
        issues: [
          { number: 11, title: 'Add search', labels: [{ name: 'ralph-task' }] },
          { number: 12, title: 'Fix `rm -rf /` $(reboot) quoting', labels: [{ name: 'ralph-task' }] },
          { number: 13, title: 'Not for ralph' },
        ],
      },
    });
    const result = runInPty([], project.dir, clis.env, [
      ['Numbers to toggle', ''],
      ['Project name [widget]: ', 'widget-app'],
      ['Test command the verification gate runs after each loop (- for none) [npm test]: ', ''],
      ['Max API calls per hour (1 or more) [100]: ', '50'],
      ['GitHub label to import [ralph-task]: ', ''],
      ['Write the Ralph files with these settings? [Y/n] ', ''],
    ]);
    expect(result.output).toContain('Phase 1 of 5: Environment Detection');
    for (const fact of ['Package manager: npm', 'Test command: npm test', 'Task sources: github']) {
      expect(result.output).toContain(fact);
    }
    expect(result.output).toContain('GitHub: 3 open issue(s)');
    expect(result.output).toContain('2) [x] GitHub issues');
    expect(result.output).toContain('Imported 2 task(s) from github');
    expect(result.output).toContain('Ralph enabled successfully!');
    expect(result.code).toBe(0);
    const plan = readFileSync(project.path('.ralph/fix_plan.md'), 'utf8');
    expect(plan).toContain('- [ ] [#12] Fix `rm -rf /` $(reboot) quoting\n');
    expect(plan).toContain('- [ ] [#11] Add search\n');
    expect(plan).not.toContain('Not for ralph');
    const ralphrc = readFileSync(project.path('.ralphrc'), 'utf8');
    expect(ralphrc).toContain('PROJECT_NAME="widget-app"');
    expect(ralphrc).toContain('MAX_CALLS_PER_HOUR=50');
    expect(ralphrc).toContain('TEST_COMMAND="npm test"');
    expect(ralphrc).toContain('TASK_SOURCES="github,local"');
  });

  it('asks before touching an enabled project: no → exit 2, yes → regenerates', () => {
    project = tmpProject({ '.ralph/PROMPT.md': 'mine\n', '.ralph/fix_plan.md': 'mine\n', '.ralph/AGENT.md': 'mine\n', '.ralphrc': 'MAX_CALLS_PER_HOUR=100\n' });
    const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const declined = runInPty([], project.dir, env, [['Do you want to continue anyway? [y/N] ', 'n']]);
    expect(declined.code).toBe(2);
    expect(declined.output).toContain('Exiting. Use --force to overwrite.');
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).toBe('mine\n');
    const accepted = runInPty([], project.dir, env, [
      ['Do you want to continue anyway? [y/N] ', 'y'],
      ['Numbers to toggle', ''],
      ['Project name', ''],
      ['Test command', ''],
      ['Max API calls per hour', ''],
      ['Write the Ralph files', 'y'],
    ]);
    expect(accepted.code).toBe(0);
    expect(readFileSync(project.path('.ralph/PROMPT.md'), 'utf8')).toContain('## Protected Files (DO NOT MODIFY)');
  });
});

describe('ralph-enable confirmation', () => {
  it('shows what it detected, takes any calls/hour --calls takes, and writes nothing when the settings are declined', () => {
    project = tmpProject({ 'package.json': '{"name":"widget","scripts":{"test":"vitest run"}}', 'pnpm-lock.yaml': '' });
    const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const declined = runInPty([], project.dir, env, [
      ['Numbers to toggle', ''],
      ['Project name', ''],
      ['Test command', ''],
      ['Max API calls per hour (1 or more) [100]: ', '5'],
      ['Write the Ralph files with these settings? [Y/n] ', 'n'],
    ]);
    expect(declined.output).toContain('Package manager: pnpm');
    expect(declined.output).toContain('Test command: pnpm test');
    expect(declined.output).toContain('Max calls/hour: 5');
    expect(declined.output).toContain('Cancelled: nothing was written.');
    expect(declined.code).toBe(1);
    expect(existsSync(project.path('.ralph'))).toBe(false);
    expect(existsSync(project.path('.ralphrc'))).toBe(false);
  });
});

describe('ralph-enable test command', () => {
  it('shows the detected test command and lets the user correct it: AGENT.md and .ralphrc get the corrected one', () => {
    project = tmpProject({ 'package.json': '{"name":"widget","scripts":{"test":"vitest run"}}' });
    const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const result = runInPty(['--skip-tasks'], project.dir, env, [
      ['Project name', ''],
      ['Test command the verification gate runs after each loop (- for none) [npm test]: ', 'npm run test:unit'],
      ['Max API calls per hour', ''],
      ['Write the Ralph files', 'y'],
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('Test command: npm run test:unit');
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toContain('TEST_COMMAND="npm run test:unit"');
    expect(readFileSync(project.path('.ralph/AGENT.md'), 'utf8')).toContain('npm run test:unit');
  });

  it('corrects TEST_COMMAND in a .ralphrc the user already has, and "-" means none', async () => {
    project = tmpProject({ 'package.json': '{"name":"widget","scripts":{"test":"vitest run"}}', '.ralphrc': 'MAX_CALLS_PER_HOUR=100\n' });
    const corrected = await runCli('ralph-enable', ['--skip-tasks'], { cwd: project.dir, input: '\nnpx vitest run\n\n' });
    expect(corrected.code, corrected.stderr).toBe(0);
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toBe('MAX_CALLS_PER_HOUR=100\nTEST_COMMAND="npx vitest run"\n');
    const none = await runCli('ralph-enable', ['--skip-tasks', '--force'], { cwd: project.dir, input: '\n-\n\n' });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('Test command: (none detected): no verification gate');
  });
});

describe('ralph-enable without a terminal', () => {
  it('prints questions on stderr only, and writes chosen values into an existing .ralphrc keeping its comments', async () => {
    project = tmpProject({ '.ralphrc': '# my settings\nMAX_CALLS_PER_HOUR=100 # per hour\nCLAUDE_MODEL=opus\n', 'docs/prd.md': '1. first\n2. second\n' });
    const result = await runCli('ralph-enable', ['--from', 'prd'], { cwd: project.dir, input: 'demo\n\n250\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Project name [');
    expect(result.stdout).not.toContain('Project name [');
    expect(result.stdout).toContain('[SKIP] .ralphrc already exists');
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toBe('# my settings\nMAX_CALLS_PER_HOUR=250 # per hour\nCLAUDE_MODEL=opus\n');
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toContain('- [ ] first\n- [ ] second\n');
  });

  it('--non-interactive asks nothing and exits 2 when already enabled; bad flags exit 3', async () => {
    project = tmpProject({});
    const first = await runCli('ralph-enable', ['--non-interactive'], { cwd: project.dir });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    // The README's order: the tasks, then --doctor (no agent call), then the loop.
    const steps = first.stdout.slice(first.stdout.indexOf('Next steps:'));
    expect(steps.indexOf('fix_plan.md')).toBeLessThan(steps.indexOf('ralph --doctor'));
    expect(steps.indexOf('ralph --doctor')).toBeLessThan(steps.indexOf('ralph --monitor'));
    const second = await runCli('ralph-enable', ['--non-interactive'], { cwd: project.dir });
    expect(second.code).toBe(2);
    expect(second.stdout).toContain('Exiting. Use --force to overwrite.');
    expect((await runCli('ralph-enable', ['--limit', '-1'], { cwd: project.dir })).code).toBe(3);
    expect((await runCli('ralph-enable', ['--from', 'none'], { cwd: project.dir })).code).toBe(3);
    expect((await runCli('ralph-enable', ['--prd', 'x.md', 'extra'], { cwd: project.dir })).code).toBe(3);
  });
});
