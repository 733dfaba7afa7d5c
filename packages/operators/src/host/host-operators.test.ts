import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import type { SvcConfig } from "@svc/config";
import { HostUnreachableError, NonRetryableError } from "@svc/errors";
import { AuthFailedError, FencedError, HostKeyUnknownError, sharedSshPool, SshExecutor, sshOptionsFromConfig } from "@svc/host";
import { createTestOperatorContext, freePort, startSshd, waitFor, type TestSshd } from "@svc/testing";
import { createHostOperators } from "./index";
import { sshdTestConfig } from "./sshd-test-helpers";
import type { Operator } from "../types";

let sshd: TestSshd;
let server: http.Server;
let base: string;
const ops = new Map<string, Operator>();

function config(over: Record<string, string> = {}): SvcConfig {
  return sshdTestConfig(sshd, sshd.dir, { SVC_VM_IMAGES_DIR: sshd.dir, ...over });
}
async function run(name: string, args: Record<string, unknown>, cfg = config()) {
  const op = ops.get(name)!;
  const ctx = createTestOperatorContext(cfg, name);
  const out = await op.run(op.args.parse(args), ctx);
  return { out: out as Record<string, unknown>, ctx };
}

beforeAll(async () => {
  sshd = await startSshd();
  for (const op of createHostOperators()) ops.set(op.name, op);
  let hits = 0;
  server = http.createServer((req, res) => {
    if (req.url === "/ok") return res.end("service is healthy");
    if (req.url === "/flaky") return hits++ < 2 ? ((res.statusCode = 503), res.end("starting")) : res.end("up");
    res.statusCode = 500;
    res.end("broken");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sharedSshPool().closeAll();
  await new Promise((r) => server.close(r));
  await sshd?.stop();
});

describe("ssh operator over the real sshd", () => {
  it("runs argv on the host and streams each line to the task log", async () => {
    const { out, ctx } = await run("ssh", { argv: ["sh", "-c", "echo one; echo two >&2; echo three"] });
    expect(out).toEqual({ exit_code: 0, stdout_tail: "one\nthree" });
    // stdout and stderr are separate streams: order is kept within each, not across them.
    expect(ctx.lines.filter((l) => l.stream === "stdout").map((l) => l.line)).toEqual(["one", "three"]);
    expect(ctx.lines.filter((l) => l.stream === "stderr").map((l) => l.line)).toEqual(["two"]);
  });

  it("fails with the exit code and the last stderr line; ok_codes widens success", async () => {
    await expect(run("ssh", { argv: ["sh", "-c", "echo nope >&2; exit 3"] })).rejects.toThrow(/'sh' exited with 3 on root@127\.0\.0\.1:\d+: nope/);
    expect((await run("ssh", { argv: ["sh", "-c", "exit 3"], ok_codes: [0, 3] })).out.exit_code).toBe(3);
  });

  it("fails clearly when the host is unreachable, the key is wrong or the host key is unknown", async () => {
    await expect(run("ssh", { argv: ["true"] }, config({ SVC_SSH_PORT: String(await freePort()) }))).rejects.toBeInstanceOf(HostUnreachableError);
    const wrong = join(sshd.dir, "op_wrong_key");
    spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", wrong]);
    await expect(run("ssh", { argv: ["true"] }, config({ SVC_SSH_KEY_PATH: wrong }))).rejects.toBeInstanceOf(AuthFailedError);
    const empty = join(sshd.dir, "op_empty_known_hosts");
    writeFileSync(empty, "");
    const err = await run("ssh", { argv: ["true"] }, config({ SVC_SSH_KNOWN_HOSTS: empty })).catch((e) => e);
    expect(err).toBeInstanceOf(HostKeyUnknownError);
    expect(err).toBeInstanceOf(NonRetryableError);
  });
});

describe("ssh operator: at most once per task across tries", () => {
  const effect = () => join(sshd.dir, "op-effect");
  const go = () => join(sshd.dir, "op-go");
  const argv = () => ["sh", "-c", 'echo effect >> "$1"; echo started; while [ ! -e "$2" ]; do sleep 0.05; done; echo finished', "sh", effect(), go()];
  const tryCtx = (tryNumber: number) => ({ ...createTestOperatorContext(config(), "fenced_step"), tryNumber });

  it("a second try while the first one's command still runs waits and adopts its result; a stale try is refused", async () => {
    const op = ops.get("ssh")!;
    const ctx1 = tryCtx(1);
    const p1 = op.run(op.args.parse({ argv: argv() }), ctx1);
    await waitFor(() => ctx1.lines.some((l) => l.line === "started"), { timeoutMs: 10_000, what: "try 1 started" });
    const ctx2 = tryCtx(2);
    const p2 = op.run(op.args.parse({ argv: argv() }), ctx2);
    await waitFor(() => ctx2.lines.some((l) => /still running on this host; waiting/.test(l.line)), { timeoutMs: 10_000, what: "try 2 waiting" });
    writeFileSync(go(), "");
    expect(await p2).toEqual(await p1);
    expect(await p2).toEqual({ exit_code: 0, stdout_tail: "started\nfinished" });
    expect(ctx2.text()).toMatch(/svc-fence: adopted the result of try 1 of this task/);
    expect(readFileSync(effect(), "utf8")).toBe("effect\n");
    const stale = await op.run(op.args.parse({ argv: argv() }), tryCtx(1)).catch((e) => e);
    expect(stale).toBeInstanceOf(FencedError);
    expect(readFileSync(effect(), "utf8")).toBe("effect\n");
    expect(existsSync(join(sshd.dir, "tries"))).toBe(true);
  });
});

describe("http_check", () => {
  it("passes on the expected status and text", async () => {
    expect((await run("http_check", { url: `${base}/ok`, contains: "healthy" })).out).toEqual({ url: `${base}/ok`, status: 200, attempts: 1 });
  });

  it("fails on another status or missing text, naming both", async () => {
    await expect(run("http_check", { url: `${base}/bad` })).rejects.toThrow(`GET ${base}/bad returned 500, expected 200`);
    await expect(run("http_check", { url: `${base}/ok`, contains: "xyz" })).rejects.toThrow(/does not contain "xyz"/);
    expect((await run("http_check", { url: `${base}/bad`, expected_status: [500] })).out.status).toBe(500);
  });

  it("retries until the service is up", async () => {
    const { out } = await run("http_check", { url: `${base}/flaky`, retries: 5, retry_interval_s: 0 });
    expect(out).toMatchObject({ status: 200, attempts: 3 });
  });

  it("says connection refused for a closed port", async () => {
    await expect(run("http_check", { url: `http://127.0.0.1:${await freePort()}/` })).rejects.toThrow(/failed: ECONNREFUSED/);
  });
});

describe("host_check", () => {
  it("reports findings instead of crashing; missing hardware virtualization is a warning", async () => {
    const { out } = await run("host_check", { min_disk_gb: 0, min_memory_mb: 0, path: "/nonexistent/dir" });
    const findings = out.findings as { check: string; severity: string; message: string }[];
    expect(findings.map((f) => f.check)).toEqual(expect.arrayContaining(["virtualization", "kvm", "libvirt", "disk", "memory", "tool:qemu-img", "tool:svc-vm"]));
    const virt = findings.find((f) => f.check === "virtualization")!;
    if (out.virt_type === "qemu") expect(virt.severity === "warning" || findings.find((f) => f.check === "kvm")!.severity === "warning").toBe(true);
    expect(typeof out.disk_free_gb).toBe("number");
    expect(out.ok).toBe(findings.every((f) => f.severity !== "error"));
  });

  it("probes the host in one command, with a tool that is missing and a path whose nearest existing parent is measured", async () => {
    const argvs: string[][] = [];
    const counted = createHostOperators({
      executor: (ctx) => {
        const ex = new SshExecutor(sshOptionsFromConfig(ctx.config), sharedSshPool());
        return { target: ex.target, run: (argv, o) => (argvs.push([...argv]), ex.run(argv, o)), close: () => ex.close() };
      },
    }).find((o) => o.name === "host_check")!;
    const out = (await counted.run(
      counted.args.parse({ path: `${sshd.dir}/no/such/dir`, min_disk_gb: 0, min_memory_mb: 0 }),
      createTestOperatorContext(config({ SVC_VM_CLI: JSON.stringify(["svc-vm-not-installed-here"]) }), "host_check"),
    )) as Record<string, unknown>;
    expect(argvs.length).toBe(1);
    const findings = out.findings as { check: string; severity: string; message: string }[];
    expect(findings.find((f) => f.check === "tool:svc-vm-not-installed-here")).toMatchObject({ severity: "error", message: "svc-vm-not-installed-here not found on PATH" });
    expect(findings.find((f) => f.check === "tool:qemu-img")?.severity).toBe("ok");
    expect(findings.find((f) => f.check === "disk")?.message).toMatch(/^\d+ GB free/);
    expect(findings.find((f) => f.check === "memory")?.message).toMatch(/^\d+ MiB available/);
    expect(out.ok).toBe(false);
  });

  it("fails only when asked to, listing the errors", async () => {
    await expect(run("host_check", { min_disk_gb: 1e9, fail_on_error: true })).rejects.toThrow(/host check failed: .*disk: \d+ GB free \(minimum 1000000000 GB\)/);
  });
});
