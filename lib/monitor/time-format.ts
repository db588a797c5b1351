// Time helpers for the dashboard: durations as people read them, local clock times, and the
// clock-hour rate window the Bash tool uses (`.last_reset` = YYYYMMDDHH, local time).

const LOCAL_STAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD HH:MM:SS` in local time (Bash progress.json) → epoch ms. */
export function parseLocalStamp(text: string | undefined): number | undefined {
  const m = text ? LOCAL_STAMP.exec(text.trim()) : null;
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = new Date(y, mo - 1, d, h, mi, s).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** 42s, 5m 04s, 1h 02m 03s. */
export function formatElapsed(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const p = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${p(m)}m ${p(sec)}s`;
  if (m > 0) return `${m}m ${p(sec)}s`;
  return `${sec}s`;
}

/** HH:MM:SS, local time. */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `YYYYMMDDHH` of the local clock hour containing `ms`. */
export function hourKeyOf(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}`;
}

/** Seconds until the next local clock hour, when the call and token counters reset. */
export function secondsUntilNextHour(ms: number): number {
  const d = new Date(ms);
  const next = new Date(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours() + 1, 0, 0, 0).getTime();
  return Math.ceil((next - ms) / 1000);
}
