import { afterEach, describe, expect, it } from 'vitest';
import { detectProjectContext } from '../../../lib/project/detect-project.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

const noCommands = { hasCommand: () => false };
let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

function detect(tree: Record<string, string>, hasCommand: (name: string) => boolean = () => false) {
  project = tmpProject(tree);
  return detectProjectContext(project.dir, { hasCommand });
}

describe('detectProjectContext', () => {
  it('finds a TypeScript project from a typescript dev dependency, with npm scripts', () => {
    const ctx = detect({
      'package.json': JSON.stringify({
        name: 'web-app',
        scripts: { build: 'tsc', test: 'vitest run', start: 'node .' },
        devDependencies: { typescript: '^5' },
      }),
    });
    expect(ctx).toMatchObject({
      name: 'web-app',
      type: 'typescript',
      packageManager: 'npm',
      buildCommand: 'npm run build',
      testCommand: 'npm test',
      runCommand: 'npm start',
    });
  });

  it('finds JavaScript, the framework, and yarn/pnpm/bun from lockfiles or packageManager', () => {
    expect(detect({ 'package.json': '{"dependencies":{"next":"1","react":"1"},"scripts":{"test":"jest"}}', 'yarn.lock': '' })).toMatchObject({
      type: 'javascript',
      framework: 'nextjs',
      packageManager: 'yarn',
      testCommand: 'yarn test',
    });
    project?.cleanup();
    expect(detect({ 'package.json': '{"scripts":{"test":"vitest"}}', 'pnpm-lock.yaml': '' })).toMatchObject({
      packageManager: 'pnpm',
      testCommand: 'pnpm test',
    });
    project?.cleanup();
    expect(detect({ 'package.json': '{"scripts":{"test":"bun test"}}', 'bun.lock': '' })).toMatchObject({ packageManager: 'bun', testCommand: 'bun run test' });
    project?.cleanup();
    expect(detect({ 'package.json': '{"packageManager":"pnpm@9.1.0","scripts":{"dev":"vite"}}' })).toMatchObject({
      packageManager: 'pnpm',
      runCommand: 'pnpm dev',
    });
  });

  it('treats tsconfig.json next to package.json as TypeScript', () => {
    expect(detect({ 'package.json': '{}', 'tsconfig.json': '{}' }).type).toBe('typescript');
  });

  it('has no test command for the placeholder script npm init writes', () => {
    const ctx = detect({ 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' });
    expect(ctx.testCommand).toBe('');
  });

  it('detects Python with uv (lockfile or uv on PATH) and with pip otherwise', () => {
    const pyproject = '[project]\nname = "my-service"\ndependencies = ["fastapi"]\n';
    expect(detect({ 'pyproject.toml': pyproject, 'uv.lock': '' })).toMatchObject({
      name: 'my-service',
      type: 'python',
      framework: 'fastapi',
      packageManager: 'uv',
      testCommand: 'uv run pytest',
      runCommand: 'uv run python -m my_service',
    });
    project?.cleanup();
    expect(detect({ 'pyproject.toml': pyproject }, (name) => name === 'uv').packageManager).toBe('uv');
    project?.cleanup();
    expect(detect({ 'setup.py': 'setup(name="legacy")', 'requirements.txt': 'Django==5\n' })).toMatchObject({
      name: 'legacy',
      type: 'python',
      framework: 'django',
      packageManager: 'pip',
      buildCommand: 'pip install -e .',
      testCommand: 'pytest',
    });
  });

  it('detects Rust and Go', () => {
    expect(detect({ 'Cargo.toml': '[package]\nname = "crab"\n' })).toMatchObject({
      name: 'crab',
      type: 'rust',
      packageManager: 'cargo',
      testCommand: 'cargo test',
    });
    project?.cleanup();
    expect(detect({ 'go.mod': 'module github.com/acme/gopher\n\ngo 1.22\n' })).toMatchObject({
      name: 'gopher',
      type: 'go',
      packageManager: 'go',
      testCommand: 'go test ./...',
    });
  });

  it('lets later rules win, as the Bash tool does (package.json + pyproject.toml = python)', () => {
    expect(detect({ 'package.json': '{"name":"js"}', 'pyproject.toml': 'name = "py"\n' })).toMatchObject({ type: 'python', name: 'py' });
  });

  it('falls back to unknown and the directory name', () => {
    project = tmpProject({ 'notes.txt': 'x' });
    const ctx = detectProjectContext(project.dir, noCommands);
    expect(ctx.type).toBe('unknown');
    expect(ctx.name).toBe(project.dir.split('/').pop());
    expect(ctx.testCommand).toBe('');
  });

  it('survives a broken package.json', () => {
    expect(detect({ 'package.json': '{ "devDependencies": { "typescript": ' }).type).toBe('typescript');
  });
});
