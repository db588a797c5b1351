// What `ralph --status` loads only when there is more to show than status.json: the JSON view,
// a parallel run, ralph's ledger, the plan's memory. One module, so the plain status's bundle
// has one lazy part and the code it shares with it in one chunk (each file costs start-up time).

export { printJson } from '../print-json.js';
export { collectStatus } from './status-json.js';
export { loadViewConfig } from '../../config/view-config.js';
export { formatParallelStatus, readParallelStatus } from '../../parallel/status-view.js';
export { silentLogger } from '../../platform/logger.js';
export { systemClock } from '../../platform/clock.js';
export { formatHeldItems, heldPlanItems } from './status-plan.js';
export { formatLedgerStatus, ledgerStatus } from './status-ledger.js';
