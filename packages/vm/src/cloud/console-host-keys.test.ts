import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { keyFingerprint, parseConsoleHostKeys } from "./console-host-keys";

// Host keys made by ssh-keygen, printed the way cloud-init's write-ssh-key-fingerprints prints
// them (through `logger -t ec2 --stderr`: the syslog-prefixed copy and the bare one both reach an
// EC2 console), amid a boot's other lines.
let dir: string;
const keys: Record<string, { pub: string; fp: string }> = {};

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "svc-console-keys-"));
  for (const t of ["ed25519", "ecdsa", "rsa"]) {
    const f = path.join(dir, `ssh_host_${t}_key`);
    execFileSync("ssh-keygen", ["-q", "-t", t, "-N", "", "-C", "root@ip-10-0-0-5", "-f", f]);
    const fp = execFileSync("ssh-keygen", ["-l", "-f", `${f}.pub`], { encoding: "utf8" }).trim();
    keys[t] = { pub: readFileSync(`${f}.pub`, "utf8").trim(), fp };
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const typeAndKey = (pub: string) => pub.split(" ").slice(0, 2).join(" ");
const syslog = (l: string) => `<14>Dec  2 06:00:01 ec2: ${l}`;

function console(o: { keyTypes?: string[]; fpTypes?: string[]; prefix?: (l: string) => string } = {}): string {
  const p = o.prefix ?? ((l: string) => l);
  const fps = (o.fpTypes ?? ["ecdsa", "ed25519", "rsa"]).map((t) => p(keys[t]!.fp));
  const pubs = (o.keyTypes ?? ["ecdsa", "ed25519", "rsa"]).map((t) => p(keys[t]!.pub));
  return [
    "[    0.000000] Linux version 6.1.0-28-cloud-amd64 (debian-kernel@lists.debian.org)",
    "[   12.345678] cloud-init[512]: Cloud-init v. 22.4.2 running 'modules:final' at Wed, 02 Dec 2026 06:00:00 +0000. Up 12.30 seconds.",
    p(""),
    p("#############################################################"),
    p("-----BEGIN SSH HOST KEY FINGERPRINTS-----"),
    ...fps,
    p("-----END SSH HOST KEY FINGERPRINTS-----"),
    p("#############################################################"),
    p("-----BEGIN SSH HOST KEY KEYS-----"),
    ...pubs,
    p("-----END SSH HOST KEY KEYS-----"),
    "[   13.000000] cloud-init[512]: Cloud-init v. 22.4.2 finished at Wed, 02 Dec 2026 06:00:01 +0000. Up 13.00 seconds",
  ].join("\r\n");
}

test("cloud-init's blocks, bare or with the syslog prefix: every host key as `type base64`, every fingerprint as ssh-keygen prints it", () => {
  for (const prefix of [undefined, syslog]) {
    const got = parseConsoleHostKeys(console({ prefix }));
    expect(got.keys).toEqual(["ecdsa", "ed25519", "rsa"].map((t) => typeAndKey(keys[t]!.pub)));
    expect(got.fingerprints).toEqual(["ecdsa", "ed25519", "rsa"].map((t) => keys[t]!.fp.split(" ")[1]));
  }
});

test("the fingerprint computed of a key is the one ssh-keygen -l gives", () => {
  for (const t of ["ecdsa", "ed25519", "rsa"]) expect(keyFingerprint(keys[t]!.pub)).toBe(keys[t]!.fp.split(" ")[1]);
});

test("ssh_key_console_blacklist leaves types out of the keys block; the fingerprints block is read on its own", () => {
  const got = parseConsoleHostKeys(console({ keyTypes: ["ed25519"], fpTypes: ["ed25519", "rsa"] }));
  expect(got.keys).toEqual([typeAndKey(keys.ed25519!.pub)]);
  expect(got.fingerprints).toEqual([keys.ed25519!.fp.split(" ")[1], keys.rsa!.fp.split(" ")[1]]);
});

test("a console without the blocks (moto's sample, keys not emitted, or not yet printed) gives no keys", () => {
  const moto = "Linux version 2.6.16-xenU (builder@patchbat.amazonsa) #1 SMP\nBIOS-provided physical RAM map:\nKernel command line: root=/dev/sda1 ro 4\n";
  expect(parseConsoleHostKeys(moto)).toEqual({ keys: [], fingerprints: [] });
  // The boot is still printing the block: an open block is not taken.
  const half = console().split("-----END SSH HOST KEY KEYS-----")[0]!;
  expect(parseConsoleHostKeys(half).keys).toEqual([]);
});

test("lines of other writers inside the block and a key cut short are not taken; the last boot's block wins", () => {
  const ed = typeAndKey(keys.ed25519!.pub);
  // Cut short by whole base64 quads: it still decodes, but its key field is not whole.
  const cut = ed.slice(0, ed.length - 8);
  const text = [
    "-----BEGIN SSH HOST KEY KEYS-----",
    typeAndKey(keys.rsa!.pub),
    "-----END SSH HOST KEY KEYS-----",
    "[   99.0] reboot: Restarting system",
    "-----BEGIN SSH HOST KEY KEYS-----",
    "[   14.1] random: crng init done",
    cut,
    "ssh-ed25519 bm90IGEga2V5 root@x",
    ed + " root@ip-10-0-0-5",
    "-----END SSH HOST KEY KEYS-----",
  ].join("\n");
  expect(parseConsoleHostKeys(text).keys).toEqual([ed]);
});
