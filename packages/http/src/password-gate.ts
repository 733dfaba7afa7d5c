import { SvcError } from "@svc/errors";

/** Too many password checks under way: the request is answered 503 at once, not queued. */
export class PasswordChecksBusyError extends SvcError {
  constructor() {
    super("unavailable", "Too many password checks in progress; retry shortly");
  }
}

/** Options of a PasswordGate. */
export interface PasswordGateOptions {
  /** Checks running at once (default 4: libuv's thread pool, which scrypt shares with file and DNS work). */
  maxInFlight?: number;
  /** Checks waiting for a free slot (default 16); one more is refused with PasswordChecksBusyError. */
  maxWaiting?: number;
}

/**
 * A bound on the password hash checks (scrypt) of one process: at most `maxInFlight` run and
 * `maxWaiting` wait; beyond that a check is refused at once. A spray of guesses, with names
 * that exist or not, then costs a bounded share of the thread pool and a quick 503 each, instead
 * of a queue that grows without limit and starves every other request's file and DNS work.
 */
export class PasswordGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly maxInFlight: number;
  private readonly maxWaiting: number;

  constructor(o: PasswordGateOptions = {}) {
    this.maxInFlight = o.maxInFlight ?? 4;
    this.maxWaiting = o.maxWaiting ?? 16;
  }

  /** Run `check` when a slot is free; rejects with PasswordChecksBusyError when none is and the wait list is full. */
  run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running < this.maxInFlight) {
      this.running++;
      return this.go(check);
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new PasswordChecksBusyError());
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.go(check));
  }

  private async go<T>(check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } finally {
      // The slot passes straight to the next waiter, so no newcomer can slip in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The gate of this process's password checks (one thread pool per process, so one gate). */
export const processPasswordGate = new PasswordGate();
