import dgram from "node:dgram";
import net from "node:net";

/** Bind `port` (0: any) on 127.0.0.1 for `proto` and release it; the port bound, or null when taken. */
function probe(proto: "tcp" | "udp", port: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (proto === "tcp") {
      const srv = net.createServer();
      srv.once("error", () => resolve(null));
      srv.listen(port, "127.0.0.1", () => {
        const a = srv.address();
        srv.close(() => resolve(typeof a === "object" && a ? a.port : null));
      });
      return;
    }
    const sock = dgram.createSocket("udp4");
    sock.once("error", () => (sock.close(), resolve(null)));
    sock.bind(port, "127.0.0.1", () => {
      const p = sock.address().port;
      sock.close(() => resolve(p));
    });
  });
}

/**
 * A 127.0.0.1 port that is free now for every protocol in `protos` (tcp and udp: the same number
 * for both, so DNS or Kerberos answer on one port) and not in `taken` (ports recorded for VMs).
 */
export async function pickForwardPort(taken: Set<number>, protos: readonly ("tcp" | "udp")[] = ["tcp"]): Promise<number> {
  const [first, ...rest] = protos.includes("tcp") ? ["tcp" as const, ...protos.filter((p) => p !== "tcp")] : [...protos];
  for (let i = 0; i < 40; i++) {
    const port = await probe(first ?? "tcp", 0);
    if (!port || taken.has(port)) continue;
    let free = true;
    for (const p of rest) free = free && (await probe(p, port)) === port;
    if (free) return port;
  }
  throw new Error(`no free 127.0.0.1 port for a VM forward (${protos.join("+")})`);
}
