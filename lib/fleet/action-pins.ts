// The GitHub Actions the fleet's workflow uses, each pinned to a full commit id (a tag can be
// moved; a commit cannot), with the release tag it stands for written beside it as a comment.
// Current majors: they run on Node 24 (the Node 20 ones make GitHub annotate every job with a
// deprecation warning). To move one: `git ls-remote https://github.com/<repo> refs/tags/<tag>`,
// then change both the commit and the tag here, and nowhere else.

export interface ActionPin {
  repo: string;
  commit: string;
  tag: string;
}

export const ACTION_PINS = {
  checkout: { repo: 'actions/checkout', commit: 'de0fac2e4500dabe0009e67214ff5f5447ce83dd', tag: 'v6.0.2' },
  setupNode: { repo: 'actions/setup-node', commit: '6044e13b5dc448c55e2357c09f80417699197238', tag: 'v6.2.0' },
  uploadArtifact: { repo: 'actions/upload-artifact', commit: 'b7c566a772e6b6bfb58ed0dc250532a479d7789f', tag: 'v6.0.0' },
} as const satisfies Record<string, ActionPin>;

/** `uses: <repo>@<commit> # <tag>`, as a step writes it. */
export function usesLine(pin: ActionPin): string {
  return `uses: ${pin.repo}@${pin.commit} # ${pin.tag}`;
}

/** The Node the jobs run ralph with: an LTS line in support (Node 20 reached its end in April 2026). */
export const JOB_NODE_VERSION = 24;
