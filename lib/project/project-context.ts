// What detection learns about a project, used to render AGENT.md, PROMPT.md
// and .ralphrc.

export type PackageManager = 'npm' | 'yarn' | 'pnpm' | 'bun' | 'uv' | 'pip' | 'cargo' | 'go';

export interface ProjectContext {
  name: string;
  /** typescript | javascript | python | rust | go | unknown (or a user override). */
  type: string;
  framework?: string;
  packageManager?: PackageManager;
  /** Empty when unknown. */
  buildCommand: string;
  testCommand: string;
  runCommand: string;
}

/** One detector's findings; the name is optional because the directory name is the fallback. */
export type DetectedPart = Omit<ProjectContext, 'name'> & { name?: string };
