import { afterEach, describe, expect, it } from 'vitest';
import { resolveClaudeCodeCommand } from '../../../lib/project/agent-command.js';
import { tmpProject, type TmpProject } from '../../helpers/tmp-project.js';

let project: TmpProject | undefined;
afterEach(() => project?.cleanup());

describe('resolveClaudeCodeCommand', () => {
  it('prefers the environment, then .ralphrc in the working directory, then claude', () => {
    project = tmpProject({ '.ralphrc': '# comment\nCLAUDE_CODE_CMD="npx @anthropic-ai/claude-code"\n' });
    expect(resolveClaudeCodeCommand({ CLAUDE_CODE_CMD: '/usr/local/bin/claude' }, project.dir)).toEqual(['/usr/local/bin/claude']);
    expect(resolveClaudeCodeCommand({}, project.dir)).toEqual(['npx', '@anthropic-ai/claude-code']);
    expect(resolveClaudeCodeCommand({}, `${project.dir}/missing`)).toEqual(['claude']);
  });
});
