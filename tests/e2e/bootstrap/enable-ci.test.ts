// ralph-enable-ci as pipelines run it: exit codes 0–5 and the exact --json shapes (the Bash tool's).
import { parseFixPlan } from '../../../lib/plan/fix-plan.js';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';
import { withFakeTaskClis, type FakeTaskClis } from '../../integration/bootstrap/fake-task-clis.js';

let project: TmpProject | undefined;
let clis: FakeTaskClis | undefined;
afterEach(() => {
  project?.cleanup();
  clis?.cleanup();
});

const FOUR_FILES = ['.ralph/PROMPT.md', '.ralph/fix_plan.md', '.ralph/AGENT.md', '.ralphrc'];

const enableCi = (args: string[], env?: Record<string, string>) => runCli('ralph-enable-ci', args, { cwd: project!.dir, env });

function successJson(name: string, type: string, detected: { test: string | null; pm: string | null }, tasks = 0): string {
  const object = {
    success: true,
    project_name: name,
    project_type: type,
    files_created: FOUR_FILES,
    tasks_imported: tasks,
    message: 'Ralph enabled successfully',
    test_command: detected.test,
    package_manager: detected.pm,
  };
  return `${JSON.stringify(object, null, 2)}\n`;
}

describe('ralph-enable-ci', () => {
  it('enables an empty git repo, refuses a second run with exit 2, and --force keeps extra files', async () => {
    project = tmpProject({}, { git: true, commit: false });
    const first = await enableCi(['--from', 'none']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Ralph enabled successfully for:');
    for (const file of FOUR_FILES) expect(existsSync(project.path(file)), file).toBe(true);

    writeFileSync(project.path('.ralph/specs/custom.md'), 'my spec\n');
    const before = FOUR_FILES.map((file) => readFileSync(project!.path(file), 'utf8'));
    const second = await enableCi(['--from', 'none']);
    expect(second.code).toBe(2);
    expect(second.stdout).toContain('Ralph is already enabled in this project. Use --force to override.');
    expect(FOUR_FILES.map((file) => readFileSync(project!.path(file), 'utf8'))).toEqual(before);

    const forced = await enableCi(['--from', 'none', '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(project.path('.ralph/specs/custom.md'), 'utf8')).toBe('my spec\n');
  });

  it('counts only the files it wrote: a project missing only .ralphrc and .gitignore gets "Files created: 2"', async () => {
    project = tmpProject({ '.ralph/PROMPT.md': '# mine\n', '.ralph/fix_plan.md': '- [ ] mine\n', '.ralph/AGENT.md': '# mine\n' }, { git: true });
    const r = await enableCi(['--from', 'none']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Files created: 2\n');
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toBe('- [ ] mine\n');
  });

  it('prints exactly the --json success object for a TypeScript project, then the already-enabled object', async () => {
    project = tmpProject({ 'package.json': JSON.stringify({ name: 'ts-app', devDependencies: { typescript: '^5.9.0' } }) }, { git: true });
    const first = await enableCi(['--json']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(successJson('ts-app', 'typescript', { test: null, pm: 'npm' }));
    expect(first.stderr).toBe('');
    const second = await enableCi(['--json']);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('{"success": false, "code": 2, "message": "Ralph already enabled. Use --force to override."}\n');
    expect(JSON.parse(second.stdout)).toEqual({ success: false, code: 2, message: 'Ralph already enabled. Use --force to override.' });
  });

  it('--jq filters the --json output in-process', async () => {
    project = tmpProject({ 'package.json': JSON.stringify({ name: 'jqapp', devDependencies: { typescript: '^5' } }) }, { git: true, commit: false });
    const r = await enableCi(['--from', 'none', '--jq', '.project_type']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('typescript\n');
  });

  it('detects Python, Rust and Go projects', async () => {
    const cases: Array<[Record<string, string>, string, string, { test: string; pm: string }]> = [
      [{ 'pyproject.toml': '[project]\nname = "pysvc"\n', 'uv.lock': '' }, 'pysvc', 'python', { test: 'uv run pytest', pm: 'uv' }],
      [{ 'Cargo.toml': '[package]\nname = "crab"\n' }, 'crab', 'rust', { test: 'cargo test', pm: 'cargo' }],
      [{ 'go.mod': 'module example.com/gopher\n' }, 'gopher', 'go', { test: 'go test ./...', pm: 'go' }],
    ];
    for (const [tree, name, type, detected] of cases) {
      project = tmpProject(tree);
      const result = await enableCi(['--json', '--from', 'none']);
      expect(result.code, type).toBe(0);
      expect(result.stdout).toBe(successJson(name, type, detected));
      project.cleanup();
    }
    project = undefined;
  });

  it('lets --project-name and --project-type override detection, in the output and in .ralphrc', async () => {
    project = tmpProject({ 'go.mod': 'module example.com/gopher\n' });
    const result = await enableCi(['--json', '--project-name', 'renamed', '--project-type', 'service']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ project_name: 'renamed', project_type: 'service' });
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toMatch(/PROJECT_NAME="renamed"\nPROJECT_TYPE="service"/);
    expect(readFileSync(project.path('.ralphrc'), 'utf8')).toContain('TEST_COMMAND="go test ./..."');
  });

  it('exits 4 for a missing PRD file, with the JSON error on stderr', async () => {
    project = tmpProject({});
    const text = await enableCi(['--from', 'prd', '--prd', 'missing.md']);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain('PRD file not found: missing.md');
    const json = await enableCi(['--json', '--from', 'prd', '--prd', 'missing.md']);
    expect(json.code).toBe(4);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({ error: 'PRD file not found: missing.md', code: 4 });
    expect(existsSync(project.path('.ralph'))).toBe(false);
  });

  it('imports PRD tasks and counts them', async () => {
    project = tmpProject({ 'docs/prd.md': '- [ ] a\n- [x] b\n1. c\n' });
    const result = await enableCi(['--json', '--from', 'prd', '--prd', 'docs/prd.md']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).tasks_imported).toBe(3);
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toContain('- [ ] a\n- [ ] b\n- [ ] c\n');
  });

  it('imports a PRD of plain bullets as tasks, and a new plan holds nothing else', async () => {
    project = tmpProject({ 'docs/prd.md': '# Product\n\n- users can log in\n- users can log out\n' });
    const text = await enableCi(['--from', 'prd', '--prd', 'docs/prd.md']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Imported 2 task(s) from prd');
    const plan = parseFixPlan(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8'), ['Optional']);
    expect(plan.openItems).toEqual(['users can log in', 'users can log out']);
  });

  it('says on stdout which formats it reads when a PRD gives no task, and on stderr under --json', async () => {
    project = tmpProject({ 'docs/prd.md': '# Product\n\nUsers can log in.\n' });
    const text = await enableCi(['--from', 'prd', '--prd', 'docs/prd.md']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Imported 0 task(s) from prd');
    expect(text.stdout).toContain(
      'Note: docs/prd.md has no task ralph can import: ralph imports checkbox items ("- [ ] task"), else numbered items ("1. task"), else plain bullets ("- task")',
    );
    expect(text.stdout).toContain('fix_plan.md starts with no task');
    expect(parseFixPlan(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8'), ['Optional']).items).toEqual([]);

    const json = await enableCi(['--json', '--force', '--from', 'prd', '--prd', 'docs/prd.md']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).tasks_imported).toBe(0);
    expect(json.stderr).toContain('Warning: docs/prd.md has no task ralph can import');
  });

  it('exits 3 for an unknown flag, a bad value or a stray argument', async () => {
    project = tmpProject({});
    for (const args of [['--bogus'], ['--limit', 'ten'], ['stray']]) {
      const result = await enableCi(args);
      expect(result.code, args.join(' ')).toBe(3);
      expect(result.stderr, args.join(' ')).toMatch(/^Error: /);
    }
    const json = await enableCi(['--json', '--bogus']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toEqual({ error: expect.stringContaining('Unknown argument: bogus'), code: 3 });
    expect(readdirSync(project.dir)).toEqual([]);
  });

  it('imports GitHub issues through gh, writing hostile titles as plain text', async () => {
    project = tmpProject({});
    clis = withFakeTaskClis({
      gh: {
        issues: [
          { number: 1, title: '`touch pwned` $(touch pwned2)', labels: [{ name: 'ralph-task' }] },
          { number: 2, title: 'Unlabelled' },
        ],
      },
    });
    const result = await enableCi(['--json', '--from', 'github'], clis.env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).tasks_imported).toBe(1);
    expect(readFileSync(project.path('.ralph/fix_plan.md'), 'utf8')).toContain('- [ ] [#1] `touch pwned` $(touch pwned2)\n');
    expect(existsSync(project.path('pwned')) || existsSync(project.path('pwned2'))).toBe(false);
    expect(clis.ghCalls().at(-1)).toContain('ralph-task');
  });

  it('exits 5 when an explicitly requested gh is missing or not logged in', async () => {
    project = tmpProject({});
    clis = withFakeTaskClis({});
    const missing = await enableCi(['--json', '--from', 'github'], clis.isolatedEnv);
    expect(missing.code).toBe(5);
    expect(JSON.parse(missing.stderr)).toEqual({ error: expect.stringContaining('GitHub CLI (gh) is not installed'), code: 5 });
    clis.cleanup();
    clis = withFakeTaskClis({ gh: { authenticated: false } });
    const loggedOut = await enableCi(['--from', 'github'], clis.env);
    expect(loggedOut.code).toBe(5);
    expect(loggedOut.stderr).toContain('not authenticated (run: gh auth login)');
  });

  it('prints help with the exit codes, and the version as JSON after --json', async () => {
    project = tmpProject({});
    const help = await enableCi(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit Codes:');
    expect(JSON.parse((await enableCi(['--json', '--version'])).stdout)).toEqual({ version: expect.any(String) });
  });

  it('--quiet prints nothing but errors, and the JSON when asked', async () => {
    project = tmpProject({ 'package.json': '{"name":"q","scripts":{"test":"vitest run"}}' });
    const quiet = await enableCi(['--quiet', '--from', 'none']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe('');
    const again = await enableCi(['--quiet', '--from', 'none']);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('already enabled');
    const json = await enableCi(['--quiet', '--json', '--from', 'none', '--force']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: true, test_command: 'npm test', package_manager: 'npm' });
    const bad = await enableCi(['--quiet', '--json', '--limit', 'x']);
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stderr).code).toBe(3);
  });

  it('says which package manager and test command it detected', async () => {
    project = tmpProject({ 'package.json': '{"name":"q","scripts":{"test":"vitest run"}}', 'pnpm-lock.yaml': '' });
    const text = await enableCi(['--from', 'none']);
    expect(text.stdout).toContain('Package manager: pnpm');
    expect(text.stdout).toContain('Test command: pnpm test');
  });
});
