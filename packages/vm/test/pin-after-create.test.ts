import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSshd, type TestSshd } from "@svc/testing";
import { pinAfterCreate } from "../src/cli/pin-after-create";
import type { CliIo } from "../src/cli/io";
import type { VmSettings } from "../src/settings";
import type { CreateResult, VmInfo } from "../src/types";

// A real sshd on 127.0.0.1 stands in for a VM's forwarded SSH port: the scan is ssh-keyscan against it.
let sshd: TestSshd;
let disksDir: string;
let settings: VmSettings;
const lines: string[] = [];
const io: CliIo = { out: () => undefined, err: (t) => lines.push(t), isTTY: false, ask: async () => "", env: {} };

function result(name: string, created: boolean, port = sshd.port): CreateResult {
  const info = { name, state: "running", ssh_host: "127.0.0.1", ssh_port: port, ssh_user: "root" } as VmInfo;
  return { info, created };
}

beforeAll(async () => {
  sshd = await startSshd();
  disksDir = mkdtempSync(join(tmpdir(), "svc-pin-"));
  settings = { imagesDir: "/nonexistent", disksDir, libvirtUri: "qemu:///system", virtType: "auto", driver: "libvirt", sshPubkeyPaths: [] };
});

afterAll(async () => {
  await sshd?.stop();
  rmSync(disksDir, { recursive: true, force: true });
});

beforeEach(() => (lines.length = 0));

describe("create vm --wait pins the new VM's host keys", () => {
  it("writes the keys the endpoint presents into <disks-dir>/<vm>/known_hosts", async () => {
    mkdirSync(join(disksDir, "vm1"));
    await pinAfterCreate(result("vm1", true), settings, io, Date.now() + 30_000);
    const pinned = readFileSync(join(disksDir, "vm1", "known_hosts"), "utf8");
    expect(pinned).toContain(`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey.split(" ").slice(0, 2).join(" ")}`);
    expect(lines).toEqual([`host keys pinned in ${join(disksDir, "vm1", "known_hosts")}`]);
  });

  it("keeps keys already pinned for a VM that existed; pins one that had none", async () => {
    mkdirSync(join(disksDir, "vm2"));
    const kh = join(disksDir, "vm2", "known_hosts");
    writeFileSync(kh, "[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinnedBeforeAndKept\n");
    await pinAfterCreate(result("vm2", false), settings, io, Date.now() + 30_000);
    expect(readFileSync(kh, "utf8")).toBe("[127.0.0.1]:1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPinnedBeforeAndKept\n");
    rmSync(kh);
    await pinAfterCreate(result("vm2", false), settings, io, Date.now() + 30_000);
    expect(readFileSync(kh, "utf8")).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  it("skips a VM with no directory under the disks directory (another backend), and warns when no key can be read", async () => {
    await pinAfterCreate(result("elsewhere", true), settings, io, Date.now() + 30_000);
    expect(existsSync(join(disksDir, "elsewhere"))).toBe(false);
    expect(lines).toEqual([]);
    mkdirSync(join(disksDir, "vm3"));
    // Nothing listens on port 1: the scan reads no key; the deadline is already past, so one try.
    await pinAfterCreate(result("vm3", true, 1), settings, io, Date.now() - 1);
    expect(existsSync(join(disksDir, "vm3", "known_hosts"))).toBe(false);
    expect(lines).toEqual(["warning: VM vm3 answered SSH but ssh-keyscan read no host key; svc-vm ssh will need --trust-on-first-use"]);
  });
});
