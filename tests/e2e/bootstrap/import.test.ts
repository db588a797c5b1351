// ralph-import end to end with the fake claude (and the fake gh for issue imports).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { killUnfinishedCalls, withFakeClaude, type FakeClaude, type FakeScenario } from '../../helpers/fake-claude.js';
import { isProcessRunning } from '../../helpers/process-state.js';
import { runCli, type RunCliOptions } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeGhData, type FakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';

let workspace: TmpProject | undefined;
let fake: FakeClaude | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  workspace?.cleanup();
  fake?.cleanup();
  clis?.cleanup();
});

const CONVERT: FakeScenario['calls'] = [
  {
    writeFiles: {
      '.ralph/PROMPT.md': '# Ralph Development Instructions\nAgent-written prompt.\n',
      '.ralph/fix_plan.md': '# Ralph Fix Plan\n- [ ] Agent-written task\n',
      '.ralph/specs/requirements.md': '# Requirements\nAgent-written spec.\n',
    },
    resultText: 'Converted.',
  },
];

function setUp(tree: Record<string, string>, scenario: FakeScenario, gh?: FakeGhData): Record<string, string> {
  workspace = tmpProject(tree);
  fake = withFakeClaude(scenario);
  if (!gh) return fake.env;
  clis = withFakeTaskClis({ gh });
  return { ...fake.env, ...clis.env, PATH: [clis.binDir, fake.env.PATH].join(delimiter) };
}

const importCli = (args: string[], env: Record<string, string>, input?: string, onSpawn?: RunCliOptions['onSpawn']) =>
  runCli('ralph-import', args, { cwd: workspace!.dir, env, input, onSpawn });

describe('ralph-import <file>', () => {
  it('creates the project and the three files through claude', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n' }, { calls: CONVERT });
    const result = await importCli(['prd.md', 'app'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('🎉 PRD imported successfully!');
    const project = workspace!.path('app');
    expect(readFileSync(join(project, '.ralph/PROMPT.md'), 'utf8')).toContain('Agent-written prompt.');
    expect(readFileSync(join(project, '.ralph/fix_plan.md'), 'utf8')).toContain('Agent-written task');
    expect(readFileSync(join(project, '.ralph/specs/requirements.md'), 'utf8')).toContain('Agent-written spec.');
    expect(readFileSync(join(project, 'prd.md'), 'utf8')).toBe('# Todo\n- [ ] add items\n');
    expect(fake!.runs()[0]!.stdin).toContain('# Todo\n- [ ] add items');
  });

  it('calls the agent with the settings a loop would use: ~/.ralphrc, .ralphrc and the environment, in that order', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n', '.ralphrc': 'CLAUDE_MODEL="from-project-rc"\n' }, { calls: CONVERT });
    const wrapper = join(env.HOME!, 'run claude');
    writeFileSync(wrapper, '#!/bin/sh\necho "$@" > "$HOME/wrapper-used"\nexec claude "$@"\n', { mode: 0o755 });
    writeFileSync(join(env.HOME!, '.ralphrc'), `CLAUDE_MODEL="from-home-rc"\nCLAUDE_CODE_CMD="sh '${wrapper}'"\n`);
    const result = await importCli(['prd.md', 'app'], env);
    expect(result.code).toBe(0);
    const argv = fake!.runs()[0]!.argv;
    // The command comes from ~/.ralphrc, split into words; the project's .ralphrc wins over it for the model.
    expect(readFileSync(join(env.HOME!, 'wrapper-used'), 'utf8')).toContain('--model from-project-rc');
    expect(argv).toEqual(expect.arrayContaining(['--model', 'from-project-rc']));
    expect(argv).not.toContain('from-home-rc');
    const overridden = await importCli(['prd.md', 'app2'], { ...env, AGENT_MODEL: 'from-env' });
    expect(overridden.code).toBe(0);
    expect(fake!.runs()[1]!.argv).toEqual(expect.arrayContaining(['--model', 'from-env']));
  });

  it('a Ctrl-C stops the conversion agent (no agent left running) and removes the half-made project', async () => {
    const env = setUp({ 'prd.md': '# Todo\n' }, { calls: [{ hang: 'afterInit', hangMaxMs: 60_000 }] });
    onTestFinished(() => killUnfinishedCalls(fake!));
    let sent = false;
    const result = await importCli(['prd.md', 'app'], env, undefined, (child) => {
      // Once the agent's call has started.
      const timer = setInterval(() => {
        if (sent || fake!.runs().length < 1) return;
        sent = true;
        clearInterval(timer);
        child.kill('SIGINT');
      }, 25);
      child.on('exit', () => clearInterval(timer));
    });
    expect(sent).toBe(true);
    expect(result.stderr).toContain('Error: PRD conversion failed: Claude Code was stopped (interrupted)');
    expect(result.code).toBe(1);
    expect(fake!.runs().filter((run) => isProcessRunning(run.pid))).toEqual([]);
    expect(existsSync(workspace!.path('app'))).toBe(false);
  });

  it("exits 1 with the agent's error when the conversion fails", async () => {
    const env = setUp({ 'prd.md': '# Todo\n' }, { calls: [{ isError: true, resultText: 'boom' }] });
    const result = await importCli(['prd.md'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: PRD conversion failed: boom');
    expect(result.stdout).not.toContain('imported successfully');
  });

  it('exits 1 and says so when the conversion wrote none of the files, though claude exited 0', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n' }, { calls: [{ resultText: 'I could not find the document.' }] });
    const result = await importCli(['prd.md', 'app'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PRD conversion produced nothing');
    expect(result.stderr).toContain('I could not find the document.');
    expect(result.stdout).not.toContain('imported successfully');
  });

  it('says "imported successfully" only when every file was written: a spec not created and a prompt not updated exit 1, naming them', async () => {
    const env = setUp(
      { 'prd.md': '# Todo\n- [ ] add items\n' },
      { calls: [{ writeFiles: { '.ralph/fix_plan.md': '# Ralph Fix Plan\n- [ ] Agent-written task\n' }, resultText: 'Converted.' }] },
    );
    const result = await importCli(['prd.md', 'app'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('imported successfully');
    expect(result.stderr).toContain(
      'Error: PRD import incomplete: .ralph/specs/requirements.md was not created; .ralph/PROMPT.md was not updated (it still holds the template)',
    );
    // What the conversion did write is kept.
    expect(readFileSync(workspace!.path('app/.ralph/fix_plan.md'), 'utf8')).toContain('Agent-written task');
  });

  it('a failed import leaves no half-made project: the same command works on the retry, without --force', async () => {
    const env = setUp({ 'prd.md': '# Todo\n' }, { calls: [{ isError: true, resultText: 'boom' }, ...CONVERT] });
    const failed = await importCli(['prd.md', 'app'], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/hint: the half-made project .*app was removed; fix the problem and run the same ralph-import again/);
    expect(existsSync(workspace!.path('app'))).toBe(false);
    const retry = await importCli(['prd.md', 'app'], env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toContain('🎉 PRD imported successfully!');
  });

  it('warns, before creating anything, that the new project would be nested in a Ralph project or a git repository', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n', '.ralph/PROMPT.md': 'outer\n' }, { calls: CONVERT });
    const result = await importCli(['prd.md', 'inner'], env);
    expect(result.stderr).toContain(`Warning: ${workspace!.path('inner')} is inside the Ralph project ${workspace!.dir}: it becomes a project nested in it`);
    const setupResult = await runCli('ralph-setup', ['sub'], { cwd: workspace!.dir, env });
    expect(setupResult.code).toBe(0);
    expect(setupResult.stderr).toContain(`Warning: ${workspace!.path('sub')} is inside the Ralph project ${workspace!.dir}`);
    const plain = await runCli('ralph-setup', ['sub2'], { cwd: workspace!.path('sub'), env });
    expect(plain.stderr).toContain(`Warning: ${workspace!.path('sub/sub2')} is inside the Ralph project ${workspace!.path('sub')}`);
  });

  it('ralph-setup inside a git repository that is no Ralph project says the new one gets a repository of its own; outside any, nothing', async () => {
    const env = setUp({}, { calls: [] });
    workspace!.git('init', '-q');
    const nested = await runCli('ralph-setup', ['app'], { cwd: workspace!.dir, env });
    expect(nested.code).toBe(0);
    expect(nested.stderr).toContain(`Warning: ${workspace!.path('app')} is inside the git repository ${workspace!.dir}: it gets a repository of its own`);
    const alone = tmpProject({}, { git: false });
    try {
      const outside = await runCli('ralph-setup', ['app'], { cwd: alone.dir, env });
      expect(outside.stderr).not.toContain('is inside');
    } finally {
      alone.cleanup();
    }
  });

  it('refuses a PDF before creating anything, and needs a source file', async () => {
    const env = setUp({ 'spec.pdf': '%PDF-1.7' }, { calls: CONVERT });
    const pdf = await importCli(['spec.pdf'], env);
    expect(pdf.code).toBe(1);
    expect(pdf.stderr).toContain('Unsupported document format ".pdf"');
    expect(pdf.stderr).toContain('hint: convert it first');
    expect(readdirSync(workspace!.dir)).toEqual(['spec.pdf']);
    const missing = await importCli(['nope.md'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Source file does not exist: nope.md');
    expect(fake!.runs()).toHaveLength(0);
  });

  it('without arguments prints the usage on stderr and exits 1; --help exits 0', async () => {
    const env = setUp({}, {});
    const result = await importCli([], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ralph-import <source-file> [project-name]');
    expect(result.stderr).toContain('Error: ralph-import needs a source file or a GitHub issue');
    const help = await importCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ralph-import <source-file> [project-name]');
  });

  it('over an existing project refuses without --force and changes nothing', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n' }, { calls: [...CONVERT, ...CONVERT] });
    expect((await importCli(['prd.md', 'app'], env)).code).toBe(0);
    const plan = workspace!.path('app/.ralph/fix_plan.md');
    const userPlan = '# Ralph Fix Plan\n- [x] Agent-written task\n- [ ] My own new item\n';
    writeFileSync(plan, userPlan);
    const again = await importCli(['prd.md', 'app'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a Ralph project: importing would replace .ralph/PROMPT.md, .ralph/fix_plan.md, .ralph/specs/requirements.md');
    expect(again.stderr).toContain('hint: run ralph-import again with --force');
    expect(again.stdout).not.toContain('imported successfully');
    expect(readFileSync(plan, 'utf8')).toBe(userPlan);
    expect(fake!.runs()).toHaveLength(1);
  });

  it('over an existing project with --force keeps a backup of every file it replaces', async () => {
    const env = setUp({ 'prd.md': '# Todo\n- [ ] add items\n' }, { calls: [...CONVERT, ...CONVERT] });
    expect((await importCli(['prd.md', 'app'], env)).code).toBe(0);
    const userPlan = '# Ralph Fix Plan\n- [ ] My own new item\n';
    writeFileSync(workspace!.path('app/.ralph/fix_plan.md'), userPlan);
    writeFileSync(workspace!.path('app/.ralph/specs/requirements.md'), '# My spec\n');
    const forced = await importCli(['prd.md', 'app', '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(
      /\[INFO\] Backup of the replaced files \(\.ralph\/PROMPT\.md, \.ralph\/fix_plan\.md, \.ralph\/specs\/requirements\.md\): .*\.ralph_backup_\d{8}_\d{6}/,
    );
    const backups = readdirSync(workspace!.path('app')).filter((name) => name.startsWith('.ralph_backup_'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(workspace!.path(`app/${backups[0]}/.ralph/fix_plan.md`), 'utf8')).toBe(userPlan);
    expect(readFileSync(workspace!.path(`app/${backups[0]}/.ralph/specs/requirements.md`), 'utf8')).toBe('# My spec\n');
    expect(readFileSync(workspace!.path('app/.ralph/fix_plan.md'), 'utf8')).toContain('Agent-written task');
  });
});

describe('ralph-import from GitHub', () => {
  const issues: FakeGhData['issues'] = [
    { number: 3, title: 'Add CSV export!', labels: [{ name: 'feature' }, { name: 'P2' }], body: 'Users want CSV.' },
    {
      number: 5,
      title: 'Fix crash',
      labels: [{ name: 'feature' }, { name: 'P1' }],
      body: 'Crash on start.',
      comments: [{ author: { login: 'bob' }, body: 'Seen on macOS' }],
    },
    { number: 8, title: 'Old idea', labels: [{ name: 'feature' }, { name: 'wontfix' }] },
  ];

  it('--dry-run lists the matches and the pick, and imports nothing', async () => {
    const env = setUp({}, { calls: CONVERT }, { issues });
    const result = await importCli(['--github-label', 'feature', '--exclude-label', 'wontfix', '--select', 'priority', '--dry-run'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/NUMBER\s+TITLE\s+LABELS\s+ASSIGNEE\s+MILESTONE/);
    expect(result.stdout).toContain('2 issue(s) match the filters.');
    expect(result.stdout).toContain('Would select: #5 (strategy: priority)');
    expect(result.stdout).toContain('Dry run: nothing was imported');
    expect(result.stdout).not.toContain('Old idea');
    expect(readdirSync(workspace!.dir)).toEqual([]);
    expect(fake!.runs()).toHaveLength(0);
  });

  it('imports one issue, generating and saving a plan for a thin issue', async () => {
    const scenario: FakeScenario = { calls: [{ resultText: '### Approach\nAdd an exporter.' }, ...CONVERT!] };
    const env = setUp({}, scenario, { issues });
    const result = await importCli(['--github-issue', '3', '--include-comments'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Score: 0/100 (low)');
    expect(result.stdout).toContain('Recommendation: generate_plan');
    const project = workspace!.path('add-csv-export');
    const document = readFileSync(join(project, 'add-csv-export-issue-3.md'), 'utf8');
    expect(document).toContain('# Add CSV export!\n\n> GitHub issue #3 | Labels: feature, P2');
    expect(document).toContain('## Implementation Plan (generated)\n\n### Approach\nAdd an exporter.');
    expect(readFileSync(join(project, '.ralph/specs/implementation-plan.md'), 'utf8')).toBe('### Approach\nAdd an exporter.\n');
    const [plan, conversion] = fake!.runs();
    expect(plan!.cwd).toBe(project);
    expect(conversion!.cwd).toBe(project);
    expect(plan!.argv).not.toContain('--allowedTools');
    expect(conversion!.argv).toContain('--allowedTools');
    expect(conversion!.stdin).toContain('## Implementation Plan (generated)');
  });

  it('with --no-generate-plan refuses a thin issue; a picked issue gets its comments', async () => {
    const env = setUp({}, { calls: CONVERT }, { issues });
    const refused = await importCli(['--github-issue', '5', '--no-generate-plan'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('below the threshold 60');
    const picked = await importCli(
      ['--github-label', 'feature', '--select', 'interactive', '--completeness-threshold', '0', '--include-comments', 'crash-fix'],
      env,
      '2\n',
    );
    expect(picked.code).toBe(0);
    expect(picked.stderr).toContain('2) #5 Fix crash');
    expect(readFileSync(workspace!.path('crash-fix/crash-fix-issue-5.md'), 'utf8')).toContain('## Discussion\n\n**bob**:\n\nSeen on macOS');
  });

  it('q cancels the interactive pick, and gh problems are reported clearly', async () => {
    const env = setUp({}, { calls: CONVERT }, { issues });
    const cancelled = await importCli(['--github-label', 'feature', '--select', 'interactive'], env, 'q\n');
    expect(cancelled.code).toBe(1);
    expect(cancelled.stderr).toContain('Import cancelled');
    const none = await importCli(['--github-title', 'nothing*'], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No issues match the specified filters');
    clis!.cleanup();
    clis = withFakeTaskClis({ gh: { authenticated: false } });
    const loggedOut = await importCli(['--github-issue', '1'], { ...env, ...clis.env, PATH: [clis.binDir, env.PATH].join(delimiter) });
    expect(loggedOut.code).toBe(1);
    expect(loggedOut.stderr).toContain('GitHub CLI (gh) is not authenticated\nhint: run: gh auth login');
    expect(existsSync(workspace!.path('issue-1'))).toBe(false);
  });
});
