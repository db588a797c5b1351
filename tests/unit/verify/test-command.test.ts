import { afterEach, describe, expect, it } from 'vitest';
import {
  agentMdTestCommandWarning,
  detectTestCommand,
  findAgentMdTestCommand,
  isPlaceholderCommand,
  resolveTestCommand,
} from '../../../lib/verify/test-command.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

describe('findAgentMdTestCommand', () => {
  it('reads the fenced block under the Test heading of the generated AGENT.md', () => {
    const md = '# Agent\n\n## Build\n```bash\nnpm run build\n```\n\n## Test\n```bash\nnpm test\n```\n\n## Run\n```bash\nnpm start\n```\n';
    expect(findAgentMdTestCommand(md)).toBe('npm test');
  });

  it('skips comments, blank lines and a $ prompt, and joins continued lines', () => {
    const md = '### Running the tests\n\n```sh\n# all of them\n\n$ python3 -m pytest \\\n    -q tests\n```\n';
    expect(findAgentMdTestCommand(md)).toBe('python3 -m pytest -q tests');
  });

  it('takes a backticked command when the section has no fenced block', () => {
    expect(findAgentMdTestCommand('## Testing\nRun `cargo test --all` before committing.\n')).toBe('cargo test --all');
  });

  it('ignores the placeholder ralph-enable writes and sections not about tests', () => {
    expect(findAgentMdTestCommand("## Build\n`make`\n## Test\n```bash\necho 'No test command configured'\n```\n")).toBeNull();
    expect(findAgentMdTestCommand('## Test\n```bash\n{{TEST_COMMAND}}\n```\n')).toBeNull();
    expect(findAgentMdTestCommand('## Latest news\n`npm test`\n')).toBeNull();
  });

  it('does not read past the next heading of the same level, and ignores # inside fences', () => {
    const md = '## Test\nNothing yet.\n## Deploy\n```bash\n# deploy\n./deploy.sh\n```\n';
    expect(findAgentMdTestCommand(md)).toBeNull();
  });
});

describe('resolveTestCommand', () => {
  it('prefers TEST_COMMAND, then detection, and never takes the command from AGENT.md (the agent edits it)', () => {
    project = tmpProject({
      '.ralph/AGENT.md': '## Test\n```bash\nmake check\n```\n',
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }),
    });
    expect(resolveTestCommand({ projectDir: project.dir, configured: 'pytest -q' })).toEqual({ command: 'pytest -q', source: 'config', detail: '.ralphrc' });
    expect(resolveTestCommand({ projectDir: project.dir, configured: '' })).toEqual({
      command: 'npm test',
      source: 'detected',
      detail: 'package.json scripts.test',
    });
    project.cleanup();
    project = tmpProject({ '.ralph/AGENT.md': '## Test\n```bash\ntouch pwned\n```\n' });
    expect(resolveTestCommand({ projectDir: project.dir, configured: '' })).toBeNull();
    project.cleanup();
    project = tmpProject({ '.ralph/AGENT.md': '# Agent\n', 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) });
    expect(resolveTestCommand({ projectDir: project.dir, configured: '  ' })).toEqual({
      command: 'npm test',
      source: 'detected',
      detail: 'package.json scripts.test',
    });
  });

  it('is null when nothing names a test command', () => {
    project = tmpProject({ '.ralph/AGENT.md': '# Agent\n', 'README.md': 'hi' });
    expect(resolveTestCommand({ projectDir: project.dir, configured: '' })).toBeNull();
  });
});

describe('agentMdTestCommandWarning', () => {
  const gate = { command: 'npm test', source: 'detected' as const, detail: 'package.json scripts.test' };

  it('quotes a different AGENT.md test command and says it is not run', () => {
    project = tmpProject({ '.ralph/AGENT.md': '## Testing\n```bash\ntouch /tmp/x; id > /tmp/y\n```\n' });
    const warning = agentMdTestCommandWarning(project.path('.ralph/AGENT.md'), gate);
    expect(warning).toContain('`touch /tmp/x; id > /tmp/y`, which ralph does not run');
    expect(warning).toContain('the gate runs `npm test` (from package.json scripts.test)');
    expect(warning).toContain('set TEST_COMMAND in .ralphrc');
    expect(agentMdTestCommandWarning(project.path('.ralph/AGENT.md'), null)).toContain('the gate has no test command');
  });

  it('is silent when AGENT.md agrees with the gate, names no command, or is missing', () => {
    project = tmpProject({ '.ralph/AGENT.md': '## Test\n```bash\nnpm test\n```\n', 'other.md': '# Agent\n' });
    expect(agentMdTestCommandWarning(project.path('.ralph/AGENT.md'), gate)).toBeNull();
    expect(agentMdTestCommandWarning(project.path('other.md'), gate)).toBeNull();
    expect(agentMdTestCommandWarning(project.path('missing.md'), gate)).toBeNull();
  });
});

describe('detectTestCommand', () => {
  it.each([
    [{ 'package.json': JSON.stringify({ scripts: { test: 'jest' } }), 'pnpm-lock.yaml': '' }, 'pnpm test'],
    [{ 'package.json': JSON.stringify({ scripts: { test: 'jest' } }), 'yarn.lock': '' }, 'yarn test'],
    [{ 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }) }, null],
    [{ 'pytest.ini': '[pytest]\n' }, 'python3 -m pytest'],
    [{ 'pyproject.toml': '[tool.pytest.ini_options]\n', 'uv.lock': '' }, 'uv run pytest'],
    [{ 'pyproject.toml': '[project]\nname = "x"\n' }, null],
    [{ 'setup.cfg': '[tool:pytest]\n' }, 'python3 -m pytest'],
    [{ 'Cargo.toml': '[package]\nname = "x"\n' }, 'cargo test'],
    [{ 'go.mod': 'module example.com/x\n' }, 'go test ./...'],
    [{ 'package.json': '{ not json' }, null],
  ])('detects %j as %j', (files, expected) => {
    project = tmpProject(files as Record<string, string>);
    expect(detectTestCommand(project.dir)?.command ?? null).toBe(expected);
  });
});

describe('isPlaceholderCommand', () => {
  it('recognises template placeholders only', () => {
    expect(isPlaceholderCommand("echo 'No test command configured'")).toBe(true);
    expect(isPlaceholderCommand('{{TEST_COMMAND}}')).toBe(true);
    expect(isPlaceholderCommand('echo ok && npm test')).toBe(false);
  });
});
