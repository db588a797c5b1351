// Git and task-source detection on real directories and repositories.
import { afterEach, describe, expect, it } from 'vitest';
import { nodeProcessRunner } from '../../../lib/platform/process.js';
import { detectGitInfo } from '../../../lib/project/detect-git.js';
import { detectTaskSources } from '../../../lib/project/detect-task-sources.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

const detectGit = (dir: string) => detectGitInfo(dir, { runner: nodeProcessRunner, env: process.env });

describe('detectGitInfo', () => {
  it('tells a GitHub repository from another remote and from no repository', async () => {
    project = tmpProject({}, { git: true });
    expect(await detectGit(project.dir)).toEqual({ isRepo: true, remoteUrl: undefined, isGitHub: false });
    project.git('remote', 'add', 'origin', 'git@github.com:acme/widget.git');
    expect(await detectGit(project.dir)).toEqual({ isRepo: true, remoteUrl: 'git@github.com:acme/widget.git', isGitHub: true });
    project.git('remote', 'set-url', 'origin', 'https://gitlab.com/acme/widget.git');
    expect((await detectGit(project.dir)).isGitHub).toBe(false);
    project.cleanup();
    project = tmpProject({});
    expect(await detectGit(project.dir)).toEqual({ isRepo: false, isGitHub: false });
  });
});

describe('detectTaskSources', () => {
  it('finds beads, GitHub and requirement-like Markdown within two levels', () => {
    project = tmpProject({
      '.beads/issues.jsonl': '',
      'PRD.md': '',
      'docs/product-requirements.md': '',
      'docs/api/spec.md': '',
      'docs/deep/er/prd.md': '',
      'specs/login-specification.md': '',
      'node_modules/pkg/prd.md': '',
      'notes.md': '',
      'prd.txt': '',
    });
    expect(detectTaskSources(project.dir, { isRepo: true, isGitHub: true })).toEqual({
      beads: true,
      github: true,
      prdFiles: ['PRD.md', 'docs/api/spec.md', 'docs/product-requirements.md', 'specs/login-specification.md'],
    });
  });
});
