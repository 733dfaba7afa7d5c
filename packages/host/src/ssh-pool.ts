import type { Client } from "ssh2";
import { connectSsh } from "./ssh-connect";
import { sshTarget, type SshOptions } from "./ssh-options";

/** Options of a connection pool. */
export interface SshPoolOptions {
  /** Close a connection after it has been idle this long (default 30 s). */
  idleCloseMs?: number;
  /** Channels per connection before another connection is opened (sshd MaxSessions is 10). */
  maxChannels?: number;
  /** Injectable connect (tests). */
  connect?: (o: SshOptions) => Promise<Client>;
}

interface Conn {
  client: Client;
  active: number;
  /** Channels this connection takes: maxChannels, or fewer after the server refused one. */
  limit: number;
  closed: boolean;
  idleTimer?: NodeJS.Timeout;
}

/** A lease on a pooled connection; release it when the channel is done. */
export interface SshLease {
  client: Client;
  /** Whether this lease opened a new connection (tests check reuse with it). */
  fresh: boolean;
  release(): void;
  /** Drop the connection from the pool (it looked broken). */
  discard(): void;
  /**
   * The server refused a channel on this live connection (sshd's MaxSessions, or sessions it has
   * not freed yet): it takes no more than it holds now until it is idle again. Releases the lease.
   */
  refused(): void;
}

/** Pools SSH connections keyed by user, host, port, key and known_hosts file; closes idle ones. */
export class SshPool {
  private readonly conns = new Map<string, Conn[]>();
  private readonly pending = new Map<string, Promise<Conn>>();
  private connectsMade = 0;

  constructor(private readonly opts: SshPoolOptions = {}) {}

  /** Number of connections opened so far (observability and tests). */
  get connectionsOpened(): number {
    return this.connectsMade;
  }

  /** Borrow a connection with a free channel slot, opening one when needed. */
  async acquire(o: SshOptions): Promise<SshLease> {
    const key = `${sshTarget(o)}|${o.keyPath ?? ""}|${o.knownHostsPath}`;
    const max = this.opts.maxChannels ?? 8;
    const list = this.conns.get(key) ?? [];
    let conn = list.find((c) => !c.closed && c.active < c.limit);
    let fresh = false;
    if (!conn) {
      // Concurrent callers share one connect instead of opening several at once.
      let p = this.pending.get(key);
      if (!p) {
        p = this.open(key, o).finally(() => this.pending.delete(key));
        this.pending.set(key, p);
        fresh = true;
      }
      conn = await p;
      if (conn.active >= conn.limit) return this.acquire(o);
    }
    const c = conn;
    c.active++;
    if (c.idleTimer) clearTimeout(c.idleTimer);
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      c.active--;
      if (c.active === 0 && !c.closed) {
        c.limit = max;
        c.idleTimer = setTimeout(() => this.drop(key, c), this.opts.idleCloseMs ?? 30_000);
        c.idleTimer.unref();
      }
    };
    return {
      client: c.client,
      fresh,
      release,
      refused: () => {
        if (!done) c.limit = Math.max(1, Math.min(c.limit, c.active - 1));
        release();
      },
      discard: () => {
        if (!done) {
          done = true;
          c.active--;
        }
        this.drop(key, c);
      },
    };
  }

  /** Close every connection. */
  async closeAll(): Promise<void> {
    for (const [key, list] of this.conns) for (const c of [...list]) this.drop(key, c);
    await Promise.allSettled([...this.pending.values()]);
    for (const [key, list] of this.conns) for (const c of [...list]) this.drop(key, c);
  }

  private async open(key: string, o: SshOptions): Promise<Conn> {
    const client = await (this.opts.connect ?? connectSsh)(o);
    this.connectsMade++;
    const conn: Conn = { client, active: 0, limit: this.opts.maxChannels ?? 8, closed: false };
    const list = this.conns.get(key) ?? [];
    list.push(conn);
    this.conns.set(key, list);
    client.on("close", () => this.drop(key, conn));
    client.on("error", () => this.drop(key, conn));
    return conn;
  }

  private drop(key: string, c: Conn): void {
    if (c.idleTimer) clearTimeout(c.idleTimer);
    if (!c.closed) {
      c.closed = true;
      c.client.end();
    }
    const list = this.conns.get(key);
    if (!list) return;
    const rest = list.filter((x) => x !== c);
    if (rest.length) this.conns.set(key, rest);
    else this.conns.delete(key);
  }
}
