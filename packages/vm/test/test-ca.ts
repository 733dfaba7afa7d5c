import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A CA made for one test run and a server certificate for 127.0.0.1 it signs (openssl); PEM texts, and the CA's file. */
export interface TestCa {
  caPem: string;
  /** The CA written to a file (NODE_EXTRA_CA_CERTS for a child process). */
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "svc-test-ca-"));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    f("ca.key"),
    "-out",
    f("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=svc test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f("srv.key"), "-out", f("srv.csr"), "-subj", "/CN=127.0.0.1");
  writeFileSync(f("ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  ssl("x509", "-req", "-in", f("srv.csr"), "-CA", f("ca.pem"), "-CAkey", f("ca.key"), "-CAcreateserial", "-out", f("srv.pem"), "-days", "2", "-extfile", f("ext"));
  return {
    caPem: readFileSync(f("ca.pem"), "utf8"),
    caFile: f("ca.pem"),
    key: readFileSync(f("srv.key"), "utf8"),
    cert: readFileSync(f("srv.pem"), "utf8"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
