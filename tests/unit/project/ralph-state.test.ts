import { afterEach, describe, expect, it } from 'vitest';
import { checkExistingRalph } from '../../../lib/project/ralph-state.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

describe('checkExistingRalph', () => {
  it('is none without .ralph/ or without any control file', () => {
    project = tmpProject({ 'README.md': '' });
    expect(checkExistingRalph(project.dir).state).toBe('none');
    project.cleanup();
    project = tmpProject({ '.ralph/specs/a.md': '' });
    expect(checkExistingRalph(project.dir).state).toBe('none');
  });

  it('is partial with the missing files listed, and complete with all three and .ralphrc', () => {
    project = tmpProject({ '.ralph/PROMPT.md': 'p' });
    expect(checkExistingRalph(project.dir)).toEqual({ state: 'partial', missing: ['.ralph/fix_plan.md', '.ralph/AGENT.md', '.ralphrc'] });
    project.cleanup();
    project = tmpProject({ '.ralph/PROMPT.md': 'p', '.ralph/fix_plan.md': 'f', '.ralph/AGENT.md': 'a' });
    expect(checkExistingRalph(project.dir)).toEqual({ state: 'partial', missing: ['.ralphrc'] });
    project.cleanup();
    project = tmpProject({ '.ralph/PROMPT.md': 'p', '.ralph/fix_plan.md': 'f', '.ralph/AGENT.md': 'a', '.ralphrc': '' });
    expect(checkExistingRalph(project.dir)).toEqual({ state: 'complete', missing: [] });
  });
});
