/**
 * sshd does not deliver SSH "signal" requests to the command (checked on OpenSSH 9.2), and
 * closing the channel leaves it running. So every remote command starts with a tiny sh
 * wrapper that reports its process group on stderr and then execs the real argv; cancel
 * and timeout kill that group over a second channel.
 */
export const PGID_MARKER = "svc-pgid:";

const WRAPPER = `echo "${PGID_MARKER}$(cut -d' ' -f5 /proc/$$/stat 2>/dev/null)" >&2; exec "$@"`;

/** argv that runs `argv` behind the reporting wrapper. */
export function wrapForKill(argv: readonly string[]): string[] {
  return ["sh", "-c", WRAPPER, "svc-exec", ...argv];
}

/** Strips the wrapper's first stderr line and hands back the process group it named. */
export class PgidSniffer {
  private head: Buffer[] | undefined = [];
  pgid: number | undefined;

  constructor(private readonly forward: (d: Buffer) => void) {}

  push(d: Buffer): void {
    if (!this.head) return this.forward(d);
    this.head.push(d);
    const all = Buffer.concat(this.head);
    const nl = all.indexOf(0x0a);
    if (nl < 0 && all.length < 256) return;
    this.head = undefined;
    const first = all.subarray(0, nl < 0 ? 0 : nl).toString("latin1");
    if (nl >= 0 && first.startsWith(PGID_MARKER)) {
      const n = Number(first.slice(PGID_MARKER.length));
      if (Number.isInteger(n) && n > 1) this.pgid = n;
      if (all.length > nl + 1) this.forward(all.subarray(nl + 1));
    } else {
      this.forward(all);
    }
  }

  /** Flush bytes held back while waiting for the marker line. */
  end(): void {
    if (this.head?.length) this.forward(Buffer.concat(this.head));
    this.head = undefined;
  }
}
