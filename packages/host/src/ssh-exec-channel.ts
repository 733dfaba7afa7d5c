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
  /** Filled when the channel closes, from the exit-status or exit-signal the server sent. */
  status: ExitStatus;
  /** Settles when the channel closes. */
  closed: Promise<void>;
}

/**
 * Start `command` on the lease's connection and record how it ended. ssh2 emits 'exit' as soon as
 * the exit-status arrives, which for a command that ends at once (`true`) can be before the exec's
 * callback has returned the channel to anyone who could listen; the command then looked as if it
 * had ended without a status (255). ssh2 also records the end and passes it to 'close', which can
 * only come after the channel's output has been read: the end is taken from there.
 */
export function openExecChannel(lease: SshLease, command: string): Promise<ExecChannel> {
  return new Promise((resolve, reject) => {
    try {
      lease.client.exec(command, (e, ch) => {
        if (e) return reject(e);
        const status: ExitStatus = {};
        const closed = new Promise<void>((done) =>
          ch.once("close", (code?: number | null, signal?: string) => {
            if (typeof code === "number") status.code = code;
            if (signal) status.signal = signal;
            done();
          }),
        );
        resolve({ ch, status, closed });
      });
    } catch (e) {
      reject(e);
    }
  });
}
