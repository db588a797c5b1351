// Tiny terminal-text helpers for the dashboard: styled segments composed into one line that
// never exceeds the terminal width, visible-width measurement (wide emoji, combining marks),
// and sanitising text read from files so it cannot move the cursor or change colours.

import { styleText } from 'node:util';
import { sanitizeLine, stripTerminalControls } from '../text/terminal-text.js';

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'title' | 'error';

export interface Segment {
  text: string;
  style?: Style;
}

// Node's own styles (util.styleText), not escape codes written here.
const FORMATS: Record<Style, Parameters<typeof styleText>[0]> = {
  bold: 'bold',
  dim: 'dim',
  red: 'red',
  green: 'green',
  yellow: 'yellow',
  blue: 'blue',
  magenta: 'magenta',
  cyan: 'cyan',
  title: ['bold', 'cyan'],
  error: ['bold', 'red'],
};

/** Removes escape sequences, control and bidi characters (the one sanitizer); tabs become spaces. */
export const sanitizeText = sanitizeLine;

// Text of one column per UTF-16 unit (printable ASCII, Latin, punctuation, arrows, the box and
// block characters of the frame: none wide, none zero-width, none a surrogate) is measured by its
// length, without the walk over each character: a frame measures thousands, and a one-shot
// `ralph-monitor --once` runs that walk cold (its start-up budget).
const ONE_COLUMN_EACH = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2190-\u21ff\u2500-\u259f]*$/;

/** Columns a string takes on a terminal (after stripping escape sequences). */
export function visibleWidth(text: string): number {
  const plain = stripTerminalControls(text);
  if (ONE_COLUMN_EACH.test(plain)) return plain.length;
  let width = 0;
  for (const char of plain) width += charWidth(char.codePointAt(0) ?? 0);
  return width;
}

/** Joins segments into one line of at most `width` columns, ending in `…` when cut. */
export function composeLine(segments: readonly Segment[], width: number, color: boolean): string {
  const limit = Math.max(0, width);
  const total = segments.reduce((sum, s) => sum + visibleWidth(sanitizeText(s.text)), 0);
  const budget = total > limit ? Math.max(0, limit - 1) : limit;
  let used = 0;
  let out = '';
  for (const segment of segments) {
    if (used >= budget) break;
    // Every segment may carry text from a state file the agent wrote; ralph's colours come after.
    const piece = cutToWidth(sanitizeText(segment.text), budget - used);
    used += visibleWidth(piece);
    out += paint(piece, segment.style, color);
  }
  if (total > limit && limit > 0) out += '…';
  return out;
}

/** The longest prefix of `text` that fits in `width` columns. */
export function cutToWidth(text: string, width: number): string {
  if (width >= 0 && ONE_COLUMN_EACH.test(text)) return text.slice(0, width);
  let used = 0;
  let out = '';
  for (const char of text) {
    const w = charWidth(char.codePointAt(0) ?? 0);
    if (used + w > width) break;
    used += w;
    out += char;
  }
  return out;
}

/** `text` in `style` when `color` is on; whether it is on was decided once (shouldUseColor), so the stream is not asked again. */
export function paint(text: string, style: Style | undefined, color: boolean): string {
  if (!color || !style || text === '') return text;
  return styleText(FORMATS[style], text, { validateStream: false });
}

/** Colour is on for a TTY unless NO_COLOR is set to anything non-empty (no-color.org). */
export function shouldUseColor(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  return isTTY && !env.NO_COLOR;
}

function charWidth(cp: number): number {
  if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x300 && cp <= 0x36f)) return 0;
  if (cp >= 0x1f3fb && cp <= 0x1f3ff) return 0; // skin-tone modifiers join the previous emoji
  return isWide(cp) ? 2 : 1;
}

// East Asian wide ranges and emoji with default emoji presentation (the ones log lines use:
// ✅ 🚨 🔍 ⏳ 🛑 …). Ambiguous-width symbols such as ⚠ stay narrow, as terminals draw them.
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

function isWide(cp: number): boolean {
  if (cp < 0x1100) return false;
  // Indexed, not destructured: no allocation per character while the code is still cold.
  for (let i = 0; i < WIDE_RANGES.length; i++) {
    const range = WIDE_RANGES[i]!;
    if (cp < range[0]) return false;
    if (cp <= range[1]) return true;
  }
  return false;
}
