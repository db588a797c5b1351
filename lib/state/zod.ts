// The one value import of zod (`import * as z from './zod.js'`): zod, configured before
// any schema is built. jitless: by default zod compiles each object schema into a function
// (`new Function`) at its first parse, which costs more than it saves in a process that parses
// each state file a few times — the read-only commands parse each once and exit (start-up
// budgets, docs/performance.md). Parsing gives the same result either way.

import { config } from 'zod';

config({ jitless: true });

export * from 'zod';
