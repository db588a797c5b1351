// Set (to 1) in the environment of the dashboard pane that `ralph --monitor` opens: there the
// dashboard ignores Ctrl+C, which would otherwise remove it for the rest of the run.
export const IN_LAYOUT_ENV = 'RALPH_MONITOR_IN_LAYOUT';
