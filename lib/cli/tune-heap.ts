// Imported by bin/ralph before the CLI itself, so the heap settings of lib/platform/heap-tuning.ts
// apply before module loading: start-up alone would otherwise grow V8's young generation to its
// maximum, which the settings only stop from growing, never shrink.

import { tuneHeapForLongRun } from '../platform/heap-tuning.js';

tuneHeapForLongRun();
