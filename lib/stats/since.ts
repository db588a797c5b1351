// `ralph-stats --since`: an ISO date or time (`2026-11-30`, `2026-11-30T04:00:00Z`) or a span back
// from now (`90s`, `30m`, `2h`, `7d`, `1w`). Pure: the caller passes "now".

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const SPAN = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i;
const ISO_START = /^\d{4}-\d{2}-\d{2}/;

export type SinceResult = { ok: true; ms: number } | { ok: false; message: string };

export function parseSince(text: string, now: number): SinceResult {
  const value = text.trim();
  const span = SPAN.exec(value);
  if (span) return { ok: true, ms: now - Number(span[1]) * UNIT_MS[span[2]!.toLowerCase()]! };
  if (ISO_START.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return { ok: true, ms };
  }
  return {
    ok: false,
    message: `--since expects an ISO date/time (2026-11-30, 2026-11-30T04:00:00Z) or a span like 30m, 2h, 7d; got '${text}'`,
  };
}
