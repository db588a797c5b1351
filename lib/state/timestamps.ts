// Timestamp formats used inside state files, matching what the Bash tool writes so either
// version can parse the other's files.

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-11-30T04:48:54+00:00`: the Bash tool's `date -u +%Y-%m-%dT%H:%M:%S%:z` form. */
export function formatIsoTimestamp(ms: number): string {
  const d = new Date(ms);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00:00`
  );
}

/** `2026-11-30 04:48:54` in local time: log lines and progress.json. */
export function formatLocalDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` + ` ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `20261130T044854` in local time: the suffix of a set-aside `*.corrupt-<stamp>` file. */
export function formatFileStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}` + `T${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
}
