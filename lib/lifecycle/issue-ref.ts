// The GitHub issue a run works on (`--github-issue REF` / GITHUB_ISSUE): `N`, `#N`,
// `owner/repo#N` or an issue URL, as the Bash tool accepts them. Anything else is refused at
// start (the Bash tool only warned and ran without it).

export interface IssueRef {
  number: number;
  /** `owner/repo` when the REF named one; every gh call then adds `--repo`. */
  repo?: string;
}

// GitHub owner and repository names: letters, digits, `-`, `_`, `.` (never a leading `-`, so a
// repo can never read as a flag where it is passed).
const NAME = '[A-Za-z0-9_.][A-Za-z0-9_.-]*';
const URL_FORM = new RegExp(`^https?://github\\.com/(${NAME}/${NAME})/issues/([0-9]+)/?(?:[?#].*)?$`);
const REPO_FORM = new RegExp(`^(${NAME}/${NAME})#([0-9]+)$`);
const NUMBER_FORM = /^#?([0-9]+)$/;

export function parseIssueRef(text: string): IssueRef | undefined {
  const ref = text.trim();
  const match = URL_FORM.exec(ref) ?? REPO_FORM.exec(ref);
  if (match) return toRef(match[2]!, match[1]!);
  const bare = NUMBER_FORM.exec(ref);
  return bare ? toRef(bare[1]!) : undefined;
}

function toRef(digits: string, repo?: string): IssueRef | undefined {
  const number = Number(digits);
  if (!Number.isSafeInteger(number) || number < 1) return undefined;
  return repo ? { number, repo } : { number };
}

/** `#42` or `owner/repo#42`, for messages. */
export function formatIssueRef(ref: IssueRef): string {
  return `${ref.repo ?? ''}#${ref.number}`;
}

/** `--repo R` when the REF named a repository, for the end of every gh argv. */
export function repoArgs(ref: IssueRef): string[] {
  return ref.repo ? ['--repo', ref.repo] : [];
}
