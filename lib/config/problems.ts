// A configuration problem (a .ralphrc line ralph ignored, an unknown key, an invalid value) and
// the one way it is written for people: `.ralphrc:4 MAX_CALLS_PER_HOUR: expected a whole number`.

export interface ConfigProblem {
  /** Display name of where it came from: `.ralphrc`, `~/.ralphrc`, `env` or `flag`. */
  file: string;
  /** 1-based line in `file`, when it is a file. */
  line?: number;
  /** The key or variable name as written. */
  key?: string;
  message: string;
  severity: 'warning' | 'error';
}

export function formatConfigProblem(problem: ConfigProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}`;
  return problem.key ? `${where} ${problem.key}: ${problem.message}` : `${where}: ${problem.message}`;
}
