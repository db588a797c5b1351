// User-facing text of ralph-enable-ci: help, and the JSON shapes pipelines parse (reference
// §9.3; kept byte-compatible with the Bash tool).

import { DEFAULT_TASK_LABEL, DEFAULT_TASK_LIMIT } from './task-import-defaults.js';

export const ENABLE_CI_EXIT = {
  success: 0,
  error: 1,
  alreadyEnabled: 2,
  invalidArgs: 3,
  fileNotFound: 4,
  dependencyMissing: 5,
} as const;

export const ALREADY_ENABLED_TEXT = 'Ralph is already enabled in this project. Use --force to override.';
export const ALREADY_ENABLED_JSON = '{"success": false, "code": 2, "message": "Ralph already enabled. Use --force to override."}';
export const SUCCESS_MESSAGE = 'Ralph enabled successfully';

export interface EnableCiSuccess {
  projectName: string;
  projectType: string;
  filesCreated: string[];
  tasksImported: number;
  /** The verification gate's command ('' = none detected, no gate). */
  testCommand: string;
  packageManager?: string;
}

/** The success object, pretty-printed as jq prints it; the Bash fields first, then ours. */
export function formatSuccessJson(result: EnableCiSuccess): string {
  return JSON.stringify(
    {
      success: true,
      project_name: result.projectName,
      project_type: result.projectType,
      files_created: result.filesCreated,
      tasks_imported: result.tasksImported,
      message: SUCCESS_MESSAGE,
      test_command: result.testCommand || null,
      package_manager: result.packageManager ?? null,
    },
    null,
    2,
  );
}

/** `{"error": "<msg>", "code": <exit status>}` (the Bash tool always said 1). */
export function formatErrorJson(message: string, code: number): string {
  return `{"error": ${JSON.stringify(message)}, "code": ${code}}`;
}

export function formatVersion(version: string, json: boolean): string {
  return json ? `{"version": ${JSON.stringify(version)}}` : `ralph-enable-ci ${version}`;
}

export const ENABLE_CI_HELP = `Usage: ralph-enable-ci [options]

Enable Ralph in the current project without prompts (for CI and scripts).

Options:
  --from <source>         Task source: beads, github, prd or none
                          (default: detected; beads > github > first PRD file > none)
  --prd <file>            PRD file for --from prd
  --label <label>         GitHub label to import (default: ${DEFAULT_TASK_LABEL})
  --limit <n>             Maximum tasks to import, 0 = all (default: ${DEFAULT_TASK_LIMIT})
  --project-name <name>   Override the detected project name
  --project-type <type>   Override the detected project type
  --force                 Replace existing Ralph files, backing each up to
                          .ralph_backup_<time>/ (files you added are kept)
  --json                  Print the result as JSON on stdout
  --jq <filter>           Filter the JSON with a jq expression (implies --json;
                          built in, no jq needed)
  --quiet                 Print nothing but errors (and the JSON with --json)
  -h, --help              Show this help
  --version               Show the version (as JSON after --json)

Exit Codes:
  0  Ralph enabled
  1  Error
  2  Already enabled (use --force)
  3  Invalid arguments
  4  File not found (e.g. the --prd file)
  5  Dependency missing (e.g. gh or bd for an explicit --from)

JSON output (--json), on success (stdout):
  {"success": true, "project_name": "...", "project_type": "...",
   "files_created": [".ralph/PROMPT.md", ".ralph/fix_plan.md", ".ralph/AGENT.md", ".ralphrc"],
   "tasks_imported": 0, "message": "Ralph enabled successfully",
   "test_command": "npm test", "package_manager": "npm"}   (null when none was detected)
Already enabled (stdout, exit 2):
  {"success": false, "code": 2, "message": "Ralph already enabled. Use --force to override."}
Other errors (stderr; code is the exit status):
  {"error": "<message>", "code": 4}
`;
