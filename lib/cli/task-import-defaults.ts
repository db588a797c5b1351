// The defaults of the task import of ralph-enable and ralph-enable-ci: what their flags fall back
// to and what their help says, from one place.

import { CONFIG_SCHEMA } from '../config/schema.js';

/** The GitHub label of issues imported as tasks: GITHUB_TASK_LABEL's default in the schema. */
export const DEFAULT_TASK_LABEL = String(CONFIG_SCHEMA.GITHUB_TASK_LABEL.default);

/** How many tasks are imported at most (0 = all). */
export const DEFAULT_TASK_LIMIT = 50;
