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
 * Start `command` on the lease's connection and record how it ended from the start. A command that
 * ends at once (`true`) can have its exit-status arrive in the same socket read as the exec's
 * confirmation, or before it; ssh2 then emits 'exit' before anyone can listen, and the command
 * looked as if it had ended without a status (255). The exit listener is attached inside ssh2's
 * callback, and the status ssh2 records and passes to 'close' fills what that listener missed.
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
        // ssh2 also passes the end it recorded to 'close': the exit-status can come before the
        // exec's confirmation, when no 'exit' listener can exist yet.
        const closed = new Promise<void>((done) =>
          ch.once("close", (code?: number | null, signal?: string) => {
            if (status.code === undefined && typeof code === "number") status.code = code;
            if (status.signal === undefined && signal) status.signal = signal;
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
