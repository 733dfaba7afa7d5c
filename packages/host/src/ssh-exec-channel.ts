import type { ClientChannel } from "ssh2";
import type { SshLease } from "./ssh-pool";

/** What the server said of the command's end: its exit status, or the signal that ended it. */
export interface ExitStatus {
  code?: number;
  signal?: string;
}

/** An exec channel with its end recorded from the moment it opened. */
export interface ExecChannel {
  ch: ClientChannel;
  /** Filled when the server sends exit-status or exit-signal. */
  status: ExitStatus;
  /** Settles when the channel closes. */
  closed: Promise<void>;
}

/**
 * Start `command` on the lease's connection. The exit and close listeners are attached inside
 * ssh2's callback, before anything else can run: a command that ends at once (`true`) can have its
 * exit-status and close arrive in the same socket read as the exec's confirmation, and ssh2 emits
 * them before an `await` on this function's result resumes. Listening after that loses the exit
 * status (the command then looks like it ended without one) or the close (the caller waits forever).
 */
export function openExecChannel(lease: SshLease, command: string): Promise<ExecChannel> {
  return new Promise((resolve, reject) => {
    try {
      lease.client.exec(command, (e, ch) => {
        if (e) return reject(e);
        const status: ExitStatus = {};
        ch.on("exit", (code: number | null, signal?: string) => {
          if (code !== null && code !== undefined) status.code = code;
          if (signal) status.signal = signal;
        });
        const closed = new Promise<void>((done) => ch.once("close", () => done()));
        resolve({ ch, status, closed });
      });
    } catch (e) {
      reject(e);
    }
  });
}
