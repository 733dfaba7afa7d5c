import { connect, type AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import { Server, utils, type Connection } from "ssh2";

// The SSH bastion of a fake cloud, for tests: an SSH server on 127.0.0.1 that takes one public key
// and only forwards (ssh -W, ProxyJump: direct-tcpip). A forward to a server's address reaches that
// server's real machine through `route` (its SSH forwarded to 127.0.0.1); one it does not know is
// refused. So svc's bastion path runs for real, and nothing connects to an address the fake invented.

export interface FakeBastion {
  port: number;
  /** Its host key as `type base64` (what svc-hosts add --bastion-key takes). */
  hostKey: string;
  /** Forwards asked for, as `address:port` (refused ones too). */
  forwards: string[];
  stop(): Promise<void>;
}

/** Start it; `authorizedKeyPath` is the .pub svc logs in with, `route` maps an address:port to a 127.0.0.1 port. */
export async function startFakeBastion(authorizedKeyPath: string, route: (address: string, port: number) => number | undefined): Promise<FakeBastion> {
  const host = utils.generateKeyPairSync("ed25519");
  const allowed = utils.parseKey(readFileSync(authorizedKeyPath, "utf8"));
  if (allowed instanceof Error) throw allowed;
  const forwards: string[] = [];
  const clients = new Set<Connection>();
  const server = new Server({ hostKeys: [host.private] }, (client) => {
    clients.add(client);
    client.on("close", () => clients.delete(client));
    client.on("error", () => undefined);
    client.on("authentication", (ctx) => {
      if (ctx.method !== "publickey") return ctx.reject(["publickey"]);
      const want = allowed.getPublicSSH();
      const same = ctx.key.algo === allowed.type && ctx.key.data.length === want.length && timingSafeEqual(ctx.key.data, want);
      if (!same) return ctx.reject(["publickey"]);
      if (ctx.signature && allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(["publickey"]);
      ctx.accept();
    });
    client.on("ready", () => {
      client.on("session", (_accept, reject) => reject());
      client.on("tcpip", (accept, reject, info) => {
        forwards.push(`${info.destIP}:${info.destPort}`);
        const to = route(info.destIP, info.destPort);
        if (!to) return reject();
        const stream = accept();
        const sock = connect(to, "127.0.0.1");
        stream.pipe(sock).pipe(stream);
        const end = () => (sock.destroy(), stream.destroy());
        sock.on("error", end);
        stream.on("error", end);
        stream.on("close", () => sock.destroy());
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const pub = utils.parseKey(host.public);
  if (pub instanceof Error) throw pub;
  return {
    port,
    hostKey: `${pub.type} ${pub.getPublicSSH().toString("base64")}`,
    forwards,
    stop: () =>
      new Promise<void>((r) => {
        for (const c of clients) c.end();
        server.close(() => r());
      }),
  };
}
