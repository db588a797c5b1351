// `--allowed-tools` checked as the Bash tool checks it: known tool names, and any `Bash(...)`
// pattern; anything else is refused naming the tool and listing the valid ones.

import type { FlagProblem } from '../flag-table.js';

const VALID_TOOLS = [
  'Write',
  'Read',
  'Edit',
  'MultiEdit',
  'Glob',
  'Grep',
  'Task',
  'TodoWrite',
  'WebFetch',
  'WebSearch',
  'Bash',
  'Bash(git *)',
  'Bash(npm *)',
  'Bash(bats *)',
  'Bash(python *)',
  'Bash(node *)',
  'NotebookEdit',
];

/** The Bash tool's check of `--allowed-tools`: known tool names, and any `Bash(...)` pattern. */
export function allowedToolsProblem(list: string): FlagProblem | undefined {
  for (const raw of list.split(',')) {
    const tool = raw.trim();
    if (tool === '' || VALID_TOOLS.includes(tool) || /^Bash\(.+\)$/.test(tool)) continue;
    return {
      message: `Invalid tool in --allowed-tools: '${tool}'`,
      details: [`Valid tools: ${VALID_TOOLS.join(', ')}`, 'Note: Bash(...) patterns with any content are allowed (e.g. Bash(git push *))'],
      hint: 'fix the --allowed-tools list',
    };
  }
  return undefined;
}
