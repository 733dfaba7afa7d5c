import { createHmac, randomBytes } from "node:crypto";
import { entryMatchesHost, fingerprint, hostKeyName, parseKnownHosts, verifyHostKey } from "./known-hosts";

function blob(type: string, body: string): Buffer {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, Buffer.from(body)]);
}

const keyA = blob("ssh-ed25519", "key-a");
const keyB = blob("ssh-ed25519", "key-b");

describe("known_hosts", () => {
  it("names non-22 ports in brackets as OpenSSH does", () => {
    expect(hostKeyName("h", 22)).toBe("h");
    expect(hostKeyName("127.0.0.1", 2222)).toBe("[127.0.0.1]:2222");
  });

  it("matches plain, wildcard, negated and hashed host patterns", () => {
    expect(entryMatchesHost("a,b,[127.0.0.1]:2222", "[127.0.0.1]:2222")).toBe(true);
    expect(entryMatchesHost("*.lab", "vm1.lab")).toBe(true);
    expect(entryMatchesHost("*.lab,!bad.lab", "bad.lab")).toBe(false);
    const salt = randomBytes(20);
    const hash = createHmac("sha1", salt).update("host1").digest("base64");
    expect(entryMatchesHost(`|1|${salt.toString("base64")}|${hash}`, "host1")).toBe(true);
    expect(entryMatchesHost(`|1|${salt.toString("base64")}|${hash}`, "host2")).toBe(false);
  });

  it("says match for a pinned key, unknown for an unlisted host, changed for a different key", () => {
    const entries = parseKnownHosts(`# comment\nhost1 ssh-ed25519 ${keyA.toString("base64")}\n\ngarbage\n`);
    expect(verifyHostKey(entries, "host1", keyA)).toEqual({ kind: "match" });
    expect(verifyHostKey(entries, "host2", keyA)).toEqual({ kind: "unknown" });
    expect(verifyHostKey(entries, "host1", keyB)).toEqual({ kind: "changed", knownTypes: ["ssh-ed25519"] });
  });

  it("refuses a revoked key even when it is also listed as pinned", () => {
    const b64 = keyA.toString("base64");
    const entries = parseKnownHosts(`@revoked * ssh-ed25519 ${b64}\nhost1 ssh-ed25519 ${b64}\n`);
    expect(verifyHostKey(entries, "host1", keyA)).toEqual({ kind: "revoked" });
  });

  it("prints OpenSSH-style SHA256 fingerprints", () => {
    expect(fingerprint(keyA)).toMatch(/^ssh-ed25519 SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
