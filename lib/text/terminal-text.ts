// Agent text made safe for a terminal: the agent (or a file it printed) may carry escape
// sequences that set the window title (OSC 0/2), write the clipboard (OSC 52), hide links
// (OSC 8), clear the screen or move the cursor. Before ralph shows agent text (--live) or writes
// it to live.log (followed by the tmux pane), every ESC sequence, C1 control and C0 control
// except newline and tab is removed, and so are the bidi controls (U+202A–U+202E,
// U+2066–U+2069) that reorder what a reader sees; ralph adds its own colours afterwards. This is
// the one sanitizer for text ralph did not write: logs, live output, the monitor, --status and
// ralph-stats all use it. Pure.

// ESC then: a CSI sequence; an OSC, DCS, SOS, PM or APC string (to BEL or ST, or to the end
// of the text when unterminated, as a terminal would swallow it); or a two-character escape.
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][\s\S]*?(?:\x07|\x1b\\|$)|[PX^_][\s\S]*?(?:\x1b\\|$)|[ -/]*[0-~])?/g;
// C0 controls but \t and \n, DEL, the C1 range (U+0080–U+009F: 8-bit CSI, OSC, …) and bidi controls.
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
const ANY_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

export function stripTerminalControls(text: string): string {
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** As stripTerminalControls, for one line of a display: tabs, newlines and CRs become spaces. */
export function sanitizeLine(text: string): string {
  return stripTerminalControls(text.replace(/[\t\n\r]/g, ' '));
}
