// The lab CA's renewal service (ca_server's svc_ca_renew.py) and the member's helper (lab_member's
// svc-cert-renew) on 127.0.0.1, with real TLS and openssl: the holder of a certificate renews it
// with that certificate and its key and holds no key of the CA's; anything else gets nothing. The
// signature is an openssl CA here (the service runs whatever `signer` names; on the CA VM it is
// multirootca through cfssl_authsign.py, as test/e2e/ca-renew-checks.ts runs it for real on the CA e2e file's CA).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, waitFor } from "@svc/testing";

const ROOT = path.resolve(__dirname, "../..");
const SERVICE = path.join(ROOT, "playbooks/roles/ca_server/files/svc_ca_renew.py");
const HELPER = path.join(ROOT, "playbooks/roles/lab_member/files/svc-cert-renew.py");
const NAME = "web01.lab.example.org";

let dir: string;
let service: ChildProcess;
let url: string;
const stops: ChildProcess[] = [];
const f = (n: string) => path.join(dir, n);
const run = (cmd: string, args: string[], env: Record<string, string> = {}) => spawnSync(cmd, args, { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
const openssl = (...args: string[]) => {
  const r = run("openssl", args);
  if (r.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
};
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
// A certificate of a root for a key (made when missing), with names, as a CA would sign it.
const issue = (ca: string, key: string, cn: string, sans: string, out: string, days = "30") => {
  openssl("req", "-new", ...(run("test", ["-e", key]).status === 0 ? ["-key", key] : [...EC, "-keyout", key]), "-subj", `/CN=${cn}`, "-out", `${out}.csr`);
  writeFileSync(`${out}.ext`, `subjectAltName=${sans}\nextendedKeyUsage=serverAuth,clientAuth\n`);
  openssl("x509", "-req", "-in", `${out}.csr`, "-CA", `${ca}.pem`, "-CAkey", `${ca}.key`, "-CAcreateserial", "-days", days, "-extfile", `${out}.ext`, "-out", out);
};
const request = (key: string, cn: string) => {
  const out = f(`req-${path.basename(key)}-${cn}.csr`);
  openssl("req", "-new", "-key", key, "-subj", `/CN=${cn}`, "-out", out);
  return out;
};
const post = (csr: string, client?: [string, string]) =>
  run("curl", [
    "-sS",
    "--max-time",
    "20",
    "--cacert",
    f("root.pem"),
    ...(client ? ["--cert", client[0], "--key", client[1]] : []),
    "--data-binary",
    `@${csr}`,
    "-w",
    "\nHTTP %{http_code}",
    `${url}/renew`,
  ]);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "svc-renewal-"));
  for (const ca of ["root", "other-root"]) openssl("req", "-x509", ...EC, "-keyout", f(`${ca}.key`), "-out", f(`${ca}.pem`), "-subj", `/CN=${ca}`, "-days", "2");
  issue(f("root"), f("server.key"), "ca.lab.example.org", "DNS:ca.lab.example.org,IP:127.0.0.1", f("server.pem"));
  issue(f("root"), f("member.key"), NAME, `DNS:${NAME},IP:192.0.2.10`, f("member.pem"));
  issue(f("other-root"), f("member.key"), NAME, `DNS:${NAME},IP:192.0.2.10`, f("foreign.pem"));
  // The signer the service runs with the request on stdin (JSON: csr, hosts, profile, key...): 30 days.
  writeFileSync(
    f("signer.py"),
    [
      "import json, subprocess, sys, tempfile",
      "r = json.load(sys.stdin)",
      "assert r['profile'] == 'member' and open(sys.argv[2]).read().strip() == r['key']",
      "sans = ','.join(('IP:' if h.replace('.', '').isdigit() else 'DNS:') + h for h in r['hosts'])",
      "with tempfile.NamedTemporaryFile('w', suffix='.ext') as e:",
      "    e.write(f'subjectAltName={sans}\\nextendedKeyUsage=serverAuth,clientAuth\\n'); e.flush()",
      "    out = subprocess.run(['openssl', 'x509', '-req', '-CA', sys.argv[1] + '.pem', '-CAkey', sys.argv[1] + '.key', '-CAcreateserial', '-days', '30', '-extfile', e.name], input=r['csr'], capture_output=True, text=True, check=True)",
      "sys.stdout.write(out.stdout)",
    ].join("\n"),
  );
  writeFileSync(f("auth.key"), "00112233445566778899aabbccddeeff\n");
  ({ url, proc: service } = await startService(""));
  writeFileSync(f("cert-renew.json"), JSON.stringify({ url, cafile: f("root.pem"), cert: f("member.pem"), key: f("member.key"), csr: request(f("member.key"), NAME) }));
}, 60_000);

afterAll(() => {
  for (const p of [service, ...stops]) p?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the member's helper leaves a certificate with more than a third of its life alone, and --force renews it: new serial, same key and names, verifying against the root", () => {
  const before = openssl("x509", "-noout", "-serial", "-in", f("member.pem"));
  const idle = run("python3", [HELPER], { SVC_CERT_RENEW_CONF: f("cert-renew.json") });
  expect([idle.status, idle.stdout]).toEqual([0, expect.stringMatching(/not renewed/)]);
  expect(openssl("x509", "-noout", "-serial", "-in", f("member.pem"))).toBe(before);

  const forced = run("python3", [HELPER, "--force"], { SVC_CERT_RENEW_CONF: f("cert-renew.json") });
  expect(`${forced.stdout}${forced.stderr}`).toMatch(/renewed, valid until/);
  expect(openssl("x509", "-noout", "-serial", "-in", f("member.pem"))).not.toBe(before);
  expect(openssl("verify", "-CAfile", f("root.pem"), f("member.pem"))).toBe(`${f("member.pem")}: OK`);
  expect(openssl("x509", "-noout", "-pubkey", "-in", f("member.pem"))).toBe(openssl("pkey", "-pubout", "-in", f("member.key")));
  expect(openssl("x509", "-noout", "-ext", "subjectAltName", "-in", f("member.pem"))).toMatch(new RegExp(`DNS:${NAME.replace(/\./g, "\\.")}, IP Address:192\\.0\\.2\\.10`));
});

test("a certificate with a third of its life left or less is renewed by the timer's plain run", () => {
  // Issued years ago, expiring in an hour (openssl ca sets both dates).
  writeFileSync(f("index.txt"), "");
  writeFileSync(f("serial"), "1000\n");
  writeFileSync(
    f("ca.cnf"),
    `[ca]\ndefault_ca = c\n[c]\ndatabase = ${f("index.txt")}\nnew_certs_dir = ${dir}\nserial = ${f("serial")}\ndefault_md = sha256\npolicy = p\nunique_subject = no\n[p]\ncommonName = supplied\n`,
  );
  const soon = `${new Date(Date.now() + 3_600_000).toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
  openssl(
    "ca",
    "-batch",
    "-notext",
    "-config",
    f("ca.cnf"),
    "-cert",
    f("root.pem"),
    "-keyfile",
    f("root.key"),
    "-in",
    f("member.pem.csr"),
    "-startdate",
    "20200101000000Z",
    "-enddate",
    soon,
    "-extfile",
    f("member.pem.ext"),
    "-out",
    f("member.pem"),
  );
  const before = openssl("x509", "-noout", "-serial", "-in", f("member.pem"));
  const due = run("python3", [HELPER], { SVC_CERT_RENEW_CONF: f("cert-renew.json") });
  expect(`${due.stdout}${due.stderr}`).toMatch(/renewed, valid until/);
  expect(openssl("x509", "-noout", "-serial", "-in", f("member.pem"))).not.toBe(before);
  expect(run("python3", [HELPER], { SVC_CERT_RENEW_CONF: f("cert-renew.json") }).stdout).toMatch(/not renewed/);
});

test("the service gives nothing for another key, another name, no client certificate, or a certificate of another root", () => {
  const me: [string, string] = [f("member.pem"), f("member.key")];
  openssl("req", "-new", ...EC, "-keyout", f("thief.key"), "-subj", `/CN=${NAME}`, "-out", f("thief.csr"));
  expect(post(f("thief.csr"), me).stdout).toMatch(/the request's key is not the client certificate's[\s\S]*HTTP 403$/);
  expect(post(request(f("member.key"), "db01.lab.example.org"), me).stdout).toMatch(/subject is not CN=web01\.lab\.example\.org[\s\S]*HTTP 403$/);
  const anonymous = post(request(f("member.key"), NAME));
  expect(anonymous.status).not.toBe(0);
  expect(anonymous.stdout).not.toMatch(/BEGIN CERTIFICATE/);
  const foreign = post(request(f("member.key"), NAME), [f("foreign.pem"), f("member.key")]);
  expect(foreign.status).not.toBe(0);
  expect(foreign.stdout).not.toMatch(/BEGIN CERTIFICATE/);
  expect(post(request(f("member.key"), NAME), me).stdout).toMatch(/BEGIN CERTIFICATE[\s\S]*HTTP 200$/);
  expect(readFileSync(f("cert-renew.json"), "utf8")).not.toMatch(/auth|root\.key/);
});

test("with the lab's DNS named, a name whose A record is gone, or points elsewhere, is not renewed (a member the lab forgot); one still there is", async () => {
  const port = await freePort();
  // The lab's DNS: web01 at its certificate's address, web03 elsewhere, web02 not at all.
  const dns = spawn(
    "dnsmasq",
    [
      "--keep-in-foreground",
      "--no-resolv",
      "--no-hosts",
      "--bind-interfaces",
      "--listen-address=127.0.0.1",
      `--port=${port}`,
      "--pid-file=",
      "--address=/web01.lab.example.org/192.0.2.10",
      "--address=/web03.lab.example.org/192.0.2.99",
    ],
    { stdio: "ignore" },
  );
  stops.push(dns);
  const svc = await startService(`127.0.0.1#${port}`);
  stops.push(svc.proc);
  const asked = (n: string) => {
    issue(f("root"), f(`${n}.key`), `${n}.lab.example.org`, `DNS:${n}.lab.example.org,IP:192.0.2.${n === "web03" ? 13 : 10}`, f(`${n}.pem`));
    return run("curl", [
      "-sS",
      "--max-time",
      "20",
      "--cacert",
      f("root.pem"),
      "--cert",
      f(`${n}.pem`),
      "--key",
      f(`${n}.key`),
      "--data-binary",
      `@${request(f(`${n}.key`), `${n}.lab.example.org`)}`,
      "-w",
      "\nHTTP %{http_code}",
      `${svc.url}/renew`,
    ]).stdout;
  };
  await waitFor(() => run("dig", ["+short", "-p", String(port), "@127.0.0.1", "web01.lab.example.org", "A"]).stdout.includes("192.0.2.10"), {
    timeoutMs: 10_000,
    what: "dnsmasq answering",
  });
  expect(asked("web01")).toMatch(/BEGIN CERTIFICATE[\s\S]*HTTP 200$/);
  expect(asked("web02")).toMatch(/web02\.lab\.example\.org is not in the lab's DNS at any of 192\.0\.2\.10: not renewed[\s\S]*HTTP 403$/);
  expect(asked("web03")).toMatch(/is not in the lab's DNS[\s\S]*HTTP 403$/);
});

test("the lab_member role names no CA key: the only signing with the auth key is ca_server's sign.yml, delegated to the KVM host", () => {
  const role = path.join(ROOT, "playbooks/roles/lab_member");
  const files = readdirSync(role, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(files.length).toBeGreaterThan(10);
  for (const e of files)
    expect([e.name, readFileSync(path.join(e.parentPath, e.name), "utf8")]).not.toEqual([e.name, expect.stringMatching(/vault_ca_auth_key|auth\.key|ca-key\.pem/)]);
  const sign = readFileSync(path.join(ROOT, "playbooks/roles/ca_server/tasks/sign.yml"), "utf8");
  const authsign = sign.slice(sign.indexOf("- name: Ask the CA to sign the request"), sign.indexOf("- name: Stop when the CA refused"));
  expect(authsign).toMatch(/vault_ca_auth_key/);
  expect(authsign).toMatch(/\n {2}delegate_to: localhost\n/);
  expect(authsign).toMatch(/\n {2}no_log: true\n/);
});

/** The renewal service on a free port of 127.0.0.1, signing with the openssl CA; dns_server as given. */
async function startService(dnsServer: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const conf = f(`renew-${port}.json`);
  writeFileSync(
    conf,
    JSON.stringify({
      listen: "127.0.0.1",
      port,
      tls_cert: f("server.pem"),
      tls_key: f("server.key"),
      root: f("root.pem"),
      signer: ["python3", f("signer.py"), f("root"), f("auth.key")],
      sign_url: "https://127.0.0.1:1",
      auth_key_file: f("auth.key"),
      profile: "member",
      dns_server: dnsServer,
    }),
  );
  const proc = spawn("python3", [SERVICE, conf], { stdio: ["ignore", "pipe", "pipe"] });
  let said = "";
  proc.stdout.on("data", (d: Buffer) => (said += d.toString()));
  await waitFor(() => said.includes("renewing certificates"), { timeoutMs: 20_000, what: "the renewal service listening" });
  return { url: `https://127.0.0.1:${port}`, proc };
}
