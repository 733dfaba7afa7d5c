/**
 * Thrown by an operator that is not done and wants to be run again later at the same try number
 * (Airflow's sensor reschedule mode): the worker commits the try `up_for_reschedule` with `output`,
 * frees its slot, and the scheduler queues the try again after `delaySeconds`.
 */
export class RescheduleTry extends Error {
  constructor(
    readonly delaySeconds: number,
    readonly output: Record<string, unknown>,
    message = `not done; running again in ${delaySeconds}s`,
  ) {
    super(message);
    this.name = "RescheduleTry";
  }
}

export const isRescheduleTry = (e: unknown): e is RescheduleTry => e instanceof RescheduleTry;
