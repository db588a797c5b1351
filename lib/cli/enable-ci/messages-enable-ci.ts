// User-facing text of ralph-enable-ci: the exit codes and the JSON shapes pipelines parse (kept
// byte-compatible with the Bash tool). Its --help is rendered from its flag table
// (bootstrap-args.ts).

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
