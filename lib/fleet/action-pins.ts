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
  checkout: { repo: 'actions/checkout', commit: '3d3c42e5aac5ba805825da76410c181273ba90b1', tag: 'v7.0.1' },
  setupNode: { repo: 'actions/setup-node', commit: '820762786026740c76f36085b0efc47a31fe5020', tag: 'v7.0.0' },
  uploadArtifact: { repo: 'actions/upload-artifact', commit: 'bbbca2ddaa5d8feaa63e36b76fdaad77386f024f', tag: 'v7.0.0' },
} as const satisfies Record<string, ActionPin>;

/** `uses: <repo>@<commit> # <tag>`, as a step writes it. */
export function usesLine(pin: ActionPin): string {
  return `uses: ${pin.repo}@${pin.commit} # ${pin.tag}`;
}

/** The Node the jobs run ralph with: an LTS line in support (Node 20 reached its end in April 2026). */
export const JOB_NODE_VERSION = 24;
