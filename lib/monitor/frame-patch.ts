// Turns "what is on screen" and "what should be" into the bytes that get there without
// flicker: no full clear, only changed lines rewritten in place (cursor to the line, the new
// text, clear to end of line), and lines the new frame no longer has blanked.

export const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J';
export const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';
export const CLEAR_SCREEN = '\x1b[H\x1b[2J';

/** The escape sequence that turns `previous` into `next` on screen; '' when nothing changed. */
export function buildFramePatch(previous: readonly string[], next: readonly string[]): string {
  let out = '';
  for (let i = 0; i < next.length; i++) {
    if (next[i] !== previous[i]) out += `\x1b[${i + 1};1H${next[i]}\x1b[K`;
  }
  for (let i = next.length; i < previous.length; i++) out += `\x1b[${i + 1};1H\x1b[K`;
  return out;
}
