// The labels a fleet job ends an issue with: done, or stopped and waiting for a person.

export const DONE_LABEL = 'ralph-done';
export const HELP_LABEL = 'ralph-needs-help';
