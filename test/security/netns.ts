import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type net from "node:net";
import path from "node:path";

/** An HTTP answer seen by a client inside the namespace. */
export interface PeerAnswer {
  status: number;
  retryAfter?: string;
}

/** A network namespace of the test's own, with extra addresses on its loopback, and a helper process in it. */
export interface TestNetns {
  name: string;
  /** argv prefix that runs a command inside the namespace. */
  exec: string[];
  /** A TCP server listening on host:0 inside the namespace, for an http.Server of this process to `listen(handle)` on. */
  listen(host: string): Promise<{ handle: net.Server; port: number }>;
  /** GET http://host:port/path from the namespace's address `from`. */
  get(o: { from: string; host: string; port: number; path: string; headers?: Record<string, string> }): Promise<PeerAnswer>;
  close(): Promise<void>;
}

function ip(...args: string[]): void {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr.trim()} (the test needs root to make a network namespace)`);
}

/**
 * A fresh network namespace whose loopback also carries `addresses` (each a /32): traffic to and
 * from them never leaves it. Servers of this process listen inside it through handles made there.
 */
export async function startNetns(label: string, addresses: string[]): Promise<TestNetns> {
  const name = `svc-${label}-${process.pid}`;
  spawnSync("ip", ["netns", "del", name]);
  ip("netns", "add", name);
  ip("-n", name, "link", "set", "lo", "up");
  for (const a of addresses) ip("-n", name, "addr", "add", `${a}/32`, "dev", "lo");
  const exec = ["ip", "netns", "exec", name];
  const peer: ChildProcess = spawn(exec[0]!, [...exec.slice(1), process.execPath, path.join(__dirname, "netns-peer.cjs")], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let next = 0;
  const waiting = new Map<number, (m: Record<string, unknown>, handle?: unknown) => void>();
  peer.on("message", (m: Record<string, unknown>, handle?: unknown) => waiting.get(m.id as number)?.(m, handle));
  const ask = (msg: Record<string, unknown>) =>
    new Promise<{ m: Record<string, unknown>; handle?: unknown }>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m, handle) => {
        waiting.delete(id);
        if (typeof m.error === "string") reject(new Error(m.error));
        else resolve({ m, handle });
      });
      peer.send({ ...msg, id });
    });
  return {
    name,
    exec,
    async listen(host) {
      const { m, handle } = await ask({ op: "listen", host });
      return { handle: handle as net.Server, port: m.port as number };
    },
    async get(o) {
      const { m } = await ask({ op: "get", ...o, headers: o.headers ?? {} });
      return { status: m.status as number, retryAfter: m.retryAfter as string | undefined };
    },
    async close() {
      if (peer.connected) {
        const exited = new Promise((r) => peer.once("exit", r));
        peer.disconnect();
        await exited;
      }
      spawnSync("ip", ["netns", "del", name]);
    },
  };
}
