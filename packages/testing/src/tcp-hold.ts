import net from "node:net";

/**
 * A TCP forward on 127.0.0.1 to a local port that can stop passing bytes, as a connection looks to
 * a client whose server went silent (no reset, no close): a process mid-request hangs there.
 */
export interface TcpHold {
  /** The forward's port on 127.0.0.1. */
  readonly port: number;
  /** Stop passing bytes on every connection, open or new. */
  hold(): void;
  /** Pass bytes again. */
  release(): void;
  close(): Promise<void>;
}

/** `port`: listen there (default: any free port); `targetHost`: default 127.0.0.1. */
export async function startTcpHold(targetPort: number, o: { port?: number; targetHost?: string } = {}): Promise<TcpHold> {
  let held = false;
  // Each direction: its destination and the bytes held back for it.
  const links = new Set<{ to: net.Socket; waiting: Buffer[] }>();
  const sockets = new Set<net.Socket>();
  const flush = () => {
    for (const l of links) for (const chunk of l.waiting.splice(0)) l.to.write(chunk);
  };
  const forward = (from: net.Socket, to: net.Socket) => {
    const link = { to, waiting: [] as Buffer[] };
    links.add(link);
    from.on("data", (chunk: Buffer) => (held ? link.waiting.push(chunk) : to.write(chunk)));
    from.on("close", () => links.delete(link));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, o.targetHost ?? "127.0.0.1");
    const end = () => {
      for (const s of [client, upstream]) {
        sockets.delete(s);
        s.destroy();
      }
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", end).on("close", end);
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(o.port ?? 0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    hold: () => void (held = true),
    release: () => {
      held = false;
      flush();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
