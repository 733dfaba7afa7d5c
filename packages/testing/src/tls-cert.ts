import { spawnSync, type SpawnSyncReturns } from "node:child_process";

/** A self-signed certificate to make: where its key and certificate go, how long it lasts, whom it names. */
export interface SelfSignedCert {
  keyPath: string;
  certPath: string;
  days: number;
  commonName: string;
  /** openssl's subjectAltName value (`DNS:localhost`); none when absent. */
  subjectAltName?: string;
}

/** Make a self-signed P-256 certificate and its unencrypted key with openssl; the caller checks `status`. */
export function makeSelfSignedCert(c: SelfSignedCert): SpawnSyncReturns<string> {
  const san = c.subjectAltName ? ["-addext", `subjectAltName=${c.subjectAltName}`] : [];
  return spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      c.keyPath,
      "-out",
      c.certPath,
      "-days",
      String(c.days),
      "-subj",
      `/CN=${c.commonName}`,
      ...san,
    ],
    { encoding: "utf8" },
  );
}
