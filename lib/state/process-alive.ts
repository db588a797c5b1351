// Whether a pid names a running process, for the project lock and for cleaning temp files
// left by killed writers.

/** Signal 0 checks existence only; EPERM means it exists but belongs to another user. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
