import type * as Ssh2 from "ssh2";
import { readFile } from "node:fs/promises";
import type { Client, ConnectConfig } from "ssh2";
import { HostUnreachableError, NonRetryableError } from "@svc/errors";
import { AuthFailedError, HostKeyChangedError, HostKeyUnknownError } from "./errors";
import { appendKnownHost, fingerprint, hostKeyName, knownKeyTypes, readKnownHosts, verifyHostKey } from "./known-hosts";
import { sshTarget, type SshOptions } from "./ssh-options";

// Host-key algorithms per known_hosts key type, so a pinned type is negotiated first (as ssh does).
const ALGOS_BY_TYPE: Record<string, string[]> = {
  "ssh-ed25519": ["ssh-ed25519"],
  "ecdsa-sha2-nistp256": ["ecdsa-sha2-nistp256"],
  "ecdsa-sha2-nistp384": ["ecdsa-sha2-nistp384"],
  "ecdsa-sha2-nistp521": ["ecdsa-sha2-nistp521"],
  "ssh-rsa": ["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"],
};
const ALL_ALGOS = Object.values(ALGOS_BY_TYPE).flat();

/** Open one authenticated SSH connection with the host key checked against known_hosts. */
export async function connectSsh(opts: SshOptions): Promise<Client> {
  // ssh2 is Node-only and heavy: load it only when a connection is made.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy synchronous load of a CommonJS module, typed by the import above
  const { Client: SshClient } = require("ssh2") as typeof Ssh2;
  const target = sshTarget(opts);
  const name = hostKeyName(opts.host, opts.port);
  if (!opts.keyPath) throw new NonRetryableError(`no SSH private key for ${target}: set SVC_SSH_KEY_PATH`);
  let privateKey: Buffer;
  try {
    privateKey = await readFile(opts.keyPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new NonRetryableError(
        `no SSH private key at ${opts.keyPath} for ${target}: run scripts/development/prepare-host.sh to generate and authorize one, or set SVC_SSH_KEY_PATH`,
      );
    }
    throw new NonRetryableError(`cannot read SSH private key ${opts.keyPath} for ${target}: ${code ?? String(e)}`);
  }
  const entries = await readKnownHosts(opts.knownHostsPath);
  const pinnedTypes = knownKeyTypes(entries, name);
  const preferred = pinnedTypes.flatMap((t) => ALGOS_BY_TYPE[t] ?? []);
  let keyProblem: Error | undefined;

  const cfg: ConnectConfig = {
    host: opts.host,
    port: opts.port,
    username: opts.user,
    privateKey,
    readyTimeout: opts.connectTimeoutMs ?? 10_000,
    keepaliveInterval: 15_000,
    keepaliveCountMax: 3,
    algorithms: { serverHostKey: [...new Set([...preferred, ...ALL_ALGOS])] as never },
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      const verdict = verifyHostKey(entries, name, key);
      const fp = fingerprint(key);
      if (verdict.kind === "match") return verify(true);
      if (verdict.kind === "unknown" && opts.trustOnFirstUse) {
        appendKnownHost(opts.knownHostsPath, name, key).then(
          () => verify(true),
          (e) => ((keyProblem = new NonRetryableError(`cannot pin host key in ${opts.knownHostsPath}: ${String(e)}`)), verify(false)),
        );
        return;
      }
      keyProblem = verdict.kind === "unknown" ? new HostKeyUnknownError(name, fp, opts.knownHostsPath) : new HostKeyChangedError(name, fp, opts.knownHostsPath);
      verify(false);
    },
  };

  return new Promise<Client>((resolve, reject) => {
    const client = new SshClient();
    let settled = false;
    client.once("ready", () => {
      settled = true;
      resolve(client);
    });
    client.on("error", (err: Error & { level?: string; code?: string }) => {
      if (settled) return; // later errors surface as 'close' on the pooled connection
      settled = true;
      client.end();
      reject(mapConnectError(err, keyProblem, target, opts));
    });
    client.connect(cfg);
  });
}

function mapConnectError(err: Error & { level?: string; code?: string }, keyProblem: Error | undefined, target: string, opts: SshOptions): Error {
  if (keyProblem) return keyProblem;
  if (err.level === "client-authentication") return new AuthFailedError(target, opts.keyPath);
  if (err.level === "client-timeout") return new HostUnreachableError(`cannot reach ${target}: no SSH handshake within ${opts.connectTimeoutMs ?? 10_000} ms`);
  if (err.code) return new HostUnreachableError(`cannot reach ${target}: ${err.code} (is sshd running there and the port right?)`);
  if (/private key|parse|unsupported key/i.test(err.message)) return new NonRetryableError(`cannot use SSH key ${opts.keyPath}: ${err.message}`);
  return new HostUnreachableError(`SSH connection to ${target} failed: ${err.message}`);
}
