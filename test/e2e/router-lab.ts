// What the router e2e test runs on the host: a DNS server and an HTTP server on 127.0.0.1 (the
// router's uplink reaches them as 10.0.2.2), SSH to the router's forwarded port and through it
// (ProxyCommand) to a VM on the lab network, and a probe the lab VM runs on itself.
import { spawn } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A DNS responder on 127.0.0.1: A records for `names`, NXDOMAIN for the rest; it logs every question. */
export interface HostDns {
  port: number;
  questions: string[];
  close(): Promise<void>;
}

function qname(msg: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let i = 12;
  while (i < msg.length && msg[i]! > 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString("ascii"));
    i += msg[i]! + 1;
  }
  return { name: labels.join(".").toLowerCase(), end: i + 5 };
}

export async function startHostDns(names: Record<string, string>): Promise<HostDns> {
  const sock: Socket = createSocket("udp4");
  const questions: string[] = [];
  sock.on("message", (msg, from) => {
    if (msg.length < 17) return;
    const { name, end } = qname(msg);
    const qtype = msg.readUInt16BE(end - 4);
    questions.push(name);
    const ip = names[name];
    const answer = ip && qtype === 1;
    const head = Buffer.alloc(12);
    msg.copy(head, 0, 0, 2);
    head.writeUInt16BE(ip ? 0x8180 : 0x8183, 2); // response, recursion available; NXDOMAIN for unknown names
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(answer ? 1 : 0, 6);
    const rr = answer ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...ip.split(".").map(Number)]) : Buffer.alloc(0);
    sock.send(Buffer.concat([head, msg.subarray(12, end), rr]), from.port, from.address);
  });
  await new Promise<void>((res) => sock.bind(0, "127.0.0.1", res));
  return { port: sock.address().port, questions, close: () => new Promise<void>((res) => sock.close(() => res())) };
}

/** An HTTP server on 127.0.0.1 answering every GET with `body`; it counts the requests. */
export async function startHostHttp(body: string): Promise<{ port: number; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.end(body);
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  return { port: (server.address() as AddressInfo).port, hits: () => hits, close: () => new Promise<void>((res) => server.close(() => res())) };
}

export interface SshResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

// Asynchronous on purpose: the DNS and HTTP servers above run in this process, and a spawnSync
// would block the event loop that answers them.
export function sshAsync(args: string[], timeoutMs: number, env?: NodeJS.ProcessEnv): Promise<SshResult> {
  return new Promise((resolve) => {
    const child = spawn("ssh", args, { stdio: ["ignore", "pipe", "pipe"], env: env && { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** ssh options for a VM whose host key is throw-away (never kept, never asked about). */
export const THROWAWAY_HOST = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20"];

/** SSH to the router on its 127.0.0.1 forward, and to a lab VM through it; the VMs' keys are throw-away. */
export function labSsh(keyPath: string, routerPort: () => number) {
  const opts = ["-i", keyPath, ...THROWAWAY_HOST];
  const run = (args: string[], timeout = 120_000) => sshAsync(args, timeout);
  return {
    router: (cmd: string) => run([...opts, "-p", String(routerPort()), "root@127.0.0.1", cmd]),
    client: (ip: string, cmd: string, timeout?: number) =>
      run([...opts, "-o", `ProxyCommand=ssh ${opts.join(" ")} -p ${routerPort()} -W %h:%p root@127.0.0.1`, `root@${ip}`, cmd], timeout),
  };
}

/**
 * A python3 script for the lab VM: resolve `lookup` (through the resolver DHCP gave it), GET `url`,
 * open TCP to `gateway`:53; prints `PROBE <tag> dns=ok|fail http=ok|fail gw=ok|fail` on one line.
 */
export function probeScript(tag: string, lookup: string, url: string, gateway: string): string {
  return `
import socket, urllib.request
def t(f):
    try:
        f(); return "ok"
    except Exception:
        return "fail"
def gw():
    socket.create_connection(("${gateway}", 53), timeout=5).close()
dns = t(lambda: socket.gethostbyname("${lookup}"))
http = t(lambda: urllib.request.urlopen("${url}", timeout=8).read())
print("PROBE ${tag} dns=%s http=%s gw=%s" % (dns, http, t(gw)), flush=True)
`;
}
