// The cfssl CA's renewal service for real (role ca_server, svc_ca_renew.py on a TCG debian12 VM),
// on the CA the CA and registry e2e file made (one CA VM for both): the holder of a certificate of
// the CA renews it with that certificate and its key as TLS client authentication and no key of
// the CA's, through the forward on 127.0.0.1, with the member's own renewal helper (lab_member's
// svc-cert-renew); a request for another key or another name, or without a client certificate,
// gets nothing.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { forwardedPort, type ProductStack, type RunOutcome } from "./product-stack";
import { REPO_ROOT } from "./stack";

const RENEW = path.join(REPO_ROOT, "playbooks/roles/lab_member/files/svc-cert-renew.py");

/** What the renewal tests take from the file that made the CA (read when the tests run). */
export interface SharedCa {
  stack(): ProductStack;
  /** The CA's create run (its forwards). */
  ca(): RunOutcome;
  caVm: string;
  domain: string;
  /** A private folder of the test for client files. */
  work(): string;
}

export function caRenewTests(shared: SharedCa): void {
  const CA = shared.caVm;
  const DOMAIN = shared.domain;
  const NAME = `web02.${DOMAIN}`;
  const dir = () => {
    const d = path.join(shared.work(), "renew");
    mkdirSync(d, { recursive: true });
    return d;
  };
  const pki = (...p: string[]) => path.join(shared.stack().inventoryDir, "pki", CA, ...p);
  const run = (cmd: string, args: string[], env?: Record<string, string>) => spawnSync(cmd, args, { encoding: "utf8", timeout: 180_000, env: { ...process.env, ...env } });
  const openssl = (...args: string[]) => run("openssl", args).stdout.trim();
  const renewUrl = () => `https://127.0.0.1:${forwardedPort(shared.ca(), "tcp", 8443)}`;
  const readable = (f: string) => spawnSync("test", ["-r", f]).status === 0;
  // A request made with a key (a new one when the file does not exist yet) for a subject.
  const request = (key: string, cn: string) => {
    const out = path.join(dir(), `${path.basename(key)}-${cn}.csr`);
    const fresh = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key];
    run("openssl", ["req", "-new", ...(readable(key) ? ["-key", key] : fresh), "-subj", `/CN=${cn}`, "-out", out]);
    return out;
  };
  // POST /renew with curl, with the holder's certificate and key unless none are given.
  const post = (csr: string, client?: { cert: string; key: string }) =>
    run("curl", [
      "-sS",
      "--max-time",
      "60",
      "--cacert",
      pki("root.pem"),
      ...(client ? ["--cert", client.cert, "--key", client.key] : []),
      "--data-binary",
      `@${csr}`,
      "-w",
      "\nHTTP %{http_code}",
      `${renewUrl()}/renew`,
    ]);
  const stack = () => shared.stack();

  describe("renewing a certificate of the lab CA with that certificate, not a CA key", () => {
    test("a forced renewal by the member's helper gets a new certificate for the same key and names, verifying against the root, with the member lifetime (720 h)", async () => {
      expect(shared.ca().state).toBe("success");
      expect((await stack().run("ca_deployment", { action: "issue", vm_name: CA, domain: DOMAIN, cert_name: NAME }, 900_000)).state).toBe("success");
      const cert = path.join(dir(), "web02.pem");
      const key = pki("issued", `${NAME}.key`);
      writeFileSync(cert, readFileSync(pki("issued", `${NAME}.pem`)));
      const before = openssl("x509", "-noout", "-serial", "-in", cert);
      const conf = path.join(dir(), "cert-renew.json");
      writeFileSync(conf, JSON.stringify({ url: renewUrl(), cafile: pki("root.pem"), cert, key, csr: request(key, NAME) }));

      const idle = run("python3", [RENEW], { SVC_CERT_RENEW_CONF: conf });
      expect(idle.stdout).toMatch(/not renewed/);
      expect(openssl("x509", "-noout", "-serial", "-in", cert)).toBe(before);

      const forced = run("python3", [RENEW, "--force"], { SVC_CERT_RENEW_CONF: conf });
      expect(`${forced.stdout}${forced.stderr}`).toMatch(/renewed, valid until/);
      expect(forced.status).toBe(0);
      expect(openssl("x509", "-noout", "-serial", "-in", cert)).not.toBe(before);
      expect(openssl("verify", "-CAfile", pki("root.pem"), cert)).toBe(`${cert}: OK`);
      expect(openssl("x509", "-noout", "-pubkey", "-in", cert)).toBe(openssl("pkey", "-pubout", "-in", key));
      expect(openssl("x509", "-noout", "-ext", "subjectAltName", "-in", cert)).toContain(`DNS:${NAME}`);
      const dates = openssl("x509", "-noout", "-startdate", "-enddate", "-in", cert).split("\n");
      const [start, end] = dates.map((l) => Date.parse(l.split("=")[1]!));
      expect((end! - start!) / 3_600_000).toBeGreaterThanOrEqual(720);
      expect((end! - start!) / 3_600_000).toBeLessThanOrEqual(721);
    }, 1_000_000);

    test("a request for another key, or for another name, is refused (403); without a client certificate TLS refuses", () => {
      const cert = path.join(dir(), "web02.pem");
      const key = pki("issued", `${NAME}.key`);
      const otherKey = request(path.join(dir(), "other.key"), NAME);
      expect(post(otherKey, { cert, key }).stdout).toMatch(/the request's key is not the client certificate's[\s\S]*HTTP 403$/);
      expect(post(request(key, `db01.${DOMAIN}`), { cert, key }).stdout).toMatch(/subject is not CN=web02[\s\S]*HTTP 403$/);
      const anonymous = post(request(key, NAME));
      expect(anonymous.status).not.toBe(0);
      expect(anonymous.stdout).not.toMatch(/BEGIN CERTIFICATE/);
      expect(post(request(key, NAME), { cert, key }).stdout).toMatch(/BEGIN CERTIFICATE[\s\S]*HTTP 200$/);
    }, 300_000);
  });
}
