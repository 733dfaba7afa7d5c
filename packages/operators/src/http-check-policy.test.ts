import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { loadConfig } from "@svc/config";
import { createTestOperatorContext, makeSelfSignedCert } from "@svc/testing";
import { AddressRefusedError } from "./checked-http";
import { createHttpCheckOperator } from "./host/http-check";

// Only 127.0.0.1 is ever connected to: every other address below is refused before connecting.
const op = createHttpCheckOperator();
let server: http.Server;
let base: string;
let port: number;
const seen: { url: string; host: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? "", host: req.headers.host ?? "" });
    const hops = /^\/hops\/(\d+)$/.exec(req.url ?? "");
    if (hops) {
      const n = Number(hops[1]);
      res.writeHead(302, { location: n > 1 ? `/hops/${n - 1}` : "/ok" });
      return res.end();
    }
    if (req.url === "/metadata") return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    if (req.url === "/v6") return res.writeHead(307, { location: `http://[::1]:${port}/ok` }).end();
    if (req.url === "/file") return res.writeHead(302, { location: "file:///etc/passwd" }).end();
    if (req.url === "/hang") return; // never answers
    res.end("service is healthy");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise((r) => (server.closeAllConnections(), server.close(r))));
beforeEach(() => (seen.length = 0));

async function check(args: Record<string, unknown>, env: Record<string, string> = {}) {
  const ctx = createTestOperatorContext(loadConfig(env), "check");
  const out = await op.run(op.args.parse(args), ctx);
  return { out, ctx };
}

test("a redirect to an address outside SVC_HTTP_CHECK_ALLOW is refused: every hop's address is checked again", async () => {
  const err = await check({ url: `${base}/v6`, retries: 3, retry_interval_s: 0 }, { SVC_HTTP_CHECK_ALLOW: "127.0.0.1/32" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AddressRefusedError);
  expect((err as Error).message).toBe(
    `http_check may not reach [::1]:${port} (the redirect of ${base}/v6): ::1 is not in the networks SVC_HTTP_CHECK_ALLOW lets it reach (127.0.0.1/32)`,
  );
  // A refusal is not retried: one request, the first hop's.
  expect(seen.map((s) => s.url)).toEqual(["/v6"]);
});

test("a name is resolved and its address checked before connecting: localhost is refused when loopback is not allowed, and no request arrives", async () => {
  const err = await check({ url: `http://localhost:${port}/ok` }, { SVC_HTTP_CHECK_ALLOW: "10.0.0.0/8" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AddressRefusedError);
  expect((err as Error).message).toMatch(new RegExp(`^http_check may not reach localhost:${port}: localhost resolves to .*127\\.0\\.0\\.1 is not in the networks`));
  expect(seen).toEqual([]);
});

test("a redirect to cloud metadata (169.254.169.254) is refused even when every network is allowed", async () => {
  const err = await check({ url: `${base}/metadata` }, { SVC_HTTP_CHECK_ALLOW: "0.0.0.0/0,::/0" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AddressRefusedError);
  expect((err as Error).message).toBe(
    `http_check may not reach 169.254.169.254 (the redirect of ${base}/metadata): 169.254.169.254 is link-local (cloud metadata lives there): always refused`,
  );
});

test("link-local URLs (IPv4, IPv6 fe80::/10, IPv4-mapped IPv6) are refused before connecting, whatever is allowed", async () => {
  for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://[febf::a9fe:a9fe]/", "http://[::ffff:169.254.169.254]/"]) {
    const err = await check({ url }, { SVC_HTTP_CHECK_ALLOW: "0.0.0.0/0,::/0" }).catch((e: unknown) => e);
    expect([url, err instanceof AddressRefusedError && /link-local/.test((err as Error).message)]).toEqual([url, true]);
  }
});

test("a redirect to another scheme is refused", async () => {
  await expect(check({ url: `${base}/file` })).rejects.toThrow(`${base}/file redirects to a file: URL: only http and https are followed`);
});

test("allowed redirects are followed, up to 5; the connection goes to the checked address with the URL's own Host", async () => {
  const { out, ctx } = await check({ url: `http://localhost:${port}/hops/4`, contains: "healthy" }, { SVC_HTTP_CHECK_ALLOW: "127.0.0.1/32" });
  expect(out).toEqual({ url: `http://localhost:${port}/hops/4`, status: 200, attempts: 1 });
  expect(seen).toEqual(["/hops/4", "/hops/3", "/hops/2", "/hops/1", "/ok"].map((url) => ({ url, host: `localhost:${port}` })));
  expect(ctx.lines.filter((l) => l.line.startsWith("302: redirected to"))).toHaveLength(4);
  await expect(check({ url: `${base}/hops/6` })).rejects.toThrow(`GET ${base}/hops/6 failed: GET ${base}/hops/6 was still redirected after 5 redirects`);
});

test("a server that does not answer within timeout_s fails the attempt, naming the timeout; HEAD reads no body", async () => {
  await expect(check({ url: `${base}/hang`, timeout_s: 0.3 })).rejects.toThrow(`GET ${base}/hang failed: no answer within 0.3 s`);
  expect((await check({ url: `${base}/ok`, method: "HEAD" })).out).toEqual({ url: `${base}/ok`, status: 200, attempts: 1 });
});

test("https is still verified: a self-signed server of localhost fails the TLS check, and nothing is read from it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-httpcheck-tls-"));
  const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  const made = makeSelfSignedCert({ keyPath: key, certPath: cert, days: 1, commonName: "localhost", subjectAltName: "DNS:localhost" });
  expect(made.status).toBe(0);
  let served = 0;
  const tls = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => (served++, res.end("secret")));
  await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
  try {
    const url = `https://localhost:${(tls.address() as AddressInfo).port}/`;
    await expect(check({ url })).rejects.toThrow(`GET ${url} failed: DEPTH_ZERO_SELF_SIGNED_CERT`);
    expect(served).toBe(0);
  } finally {
    await new Promise((r) => tls.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("SVC_HTTP_CHECK_ALLOW must list networks; the default is loopback", () => {
  expect(loadConfig({}).httpCheck.allow).toEqual(["127.0.0.0/8", "::1/128"]);
  expect(() => loadConfig({ SVC_HTTP_CHECK_ALLOW: "127.0.0.1/33" })).toThrow(/SVC_HTTP_CHECK_ALLOW/);
  expect(() => loadConfig({ SVC_HTTP_CHECK_ALLOW: "localhost" })).toThrow(/SVC_HTTP_CHECK_ALLOW/);
});
