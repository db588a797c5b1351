// User-facing text of ralph-enable-ci: help, and the JSON shapes pipelines parse (reference
// §9.3; kept byte-compatible with the Bash tool).

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
}

/** The success object, pretty-printed as jq prints it. */
export function formatSuccessJson(result: EnableCiSuccess): string {
  return JSON.stringify(
    {
      success: true,
      project_name: result.projectName,
      project_type: result.projectType,
      files_created: result.filesCreated,
      tasks_imported: result.tasksImported,
      message: SUCCESS_MESSAGE,
    },
    null,
    2,
  );
}

/** `{"error": "<msg>", "code": 1}`; the code field is always 1, whatever the exit code. */
export function formatErrorJson(message: string): string {
  return `{"error": ${JSON.stringify(message)}, "code": 1}`;
}

export function formatVersion(version: string, json: boolean): string {
  return json ? `{"version": ${JSON.stringify(version)}}` : `ralph enable-ci version ${version}`;
}

export const ENABLE_CI_HELP = `Usage: ralph-enable-ci [options]

Enable Ralph in the current project without prompts (for CI and scripts).

Options:
  --from <source>         Task source: beads, github, prd or none
                          (default: detected; beads > github > first PRD file > none)
  --prd <file>            PRD file for --from prd
  --label <label>         GitHub label to import (default: ralph-task)
  --limit <n>             Maximum tasks to import, 0 = all (default: 50)
  --project-name <name>   Override the detected project name
  --project-type <type>   Override the detected project type
  --force                 Overwrite existing Ralph files (files you added are kept)
  --json                  Print the result as JSON on stdout
  --quiet                 Print only the result
  -h, --help              Show this help
  -v, --version           Show the version

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
   "tasks_imported": 0, "message": "Ralph enabled successfully"}
Already enabled (stdout, exit 2):
  {"success": false, "code": 2, "message": "Ralph already enabled. Use --force to override."}
Other errors (stderr):
  {"error": "<message>", "code": 1}
`;
