// Whether this process may create files in a folder (.ralph/), asked of the kernel with
// access(2): a read-only mount answers EROFS even for root, file modes EACCES for a user they
// apply to. Shared by the run's start-up check and `ralph --doctor`, so both say the same.

import { accessSync, constants } from 'node:fs';

/** Why `dir` cannot be written ('read-only file system', 'permission denied', …), or null. */
export function unwritableReason(dir: string): string | null {
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return code === 'EROFS' ? 'read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String(code);
  }
}
