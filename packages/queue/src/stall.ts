/**
 * BullMQ worker options that give back, within about 1.5 × `lockMs`, a job taken by a process that
 * died before finishing it: its lock lapses after `lockMs` (renewed every half of it while the
 * process lives) and a stall check every half of it moves the job back to waiting. BullMQ's own
 * defaults (a 30 s lock, a check every 30 s) make that up to a minute.
 */
export function stallOptions(lockMs: number): { lockDuration: number; stalledInterval: number } {
  return { lockDuration: lockMs, stalledInterval: Math.max(500, Math.floor(lockMs / 2)) };
}
