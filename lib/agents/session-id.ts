// The shape every resumable session id must have before it reaches argv as a flag's value. The
// id comes from a file the agent can write (.ralph/.claude_session_id) or from its output, so a
// value like `--dangerously-skip-permissions` must never pass: an id starts with a letter or
// digit and holds only [A-Za-z0-9._:-]. Claude's ids are UUIDs, Codex's thread ids too, OpenCode's
// `ses_…`; the upstream tool's own tests use ids like `e2e-sess-abc123`, which pass as well.

const SESSION_ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export function isSafeSessionId(id: string): boolean {
  return SESSION_ID_SHAPE.test(id);
}
