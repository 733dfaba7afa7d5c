import net from "node:net";

/** A 127.0.0.1 TCP port that is free now and not in `taken` (ports recorded for other VMs). */
export async function pickForwardPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.on("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const a = srv.address();
        srv.close(() => resolve(typeof a === "object" && a ? a.port : 0));
      });
    });
    if (port && !taken.has(port)) return port;
  }
  throw new Error("no free 127.0.0.1 port for the VM's SSH forward");
}
