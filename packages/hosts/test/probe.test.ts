import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { HostExecutor } from "@svc/host";
import { ensureLibvirtd, startSshd, type TestSshd } from "@svc/testing";
import { firstContactKey, hostExecutor, type HostTarget } from "../src/connect";
import { probeHost } from "../src/probe";
import { defineSvcDomain } from "./domain";

// The probe against this machine's libvirt (qemu:///system) through a private sshd, as a second
// host would be reached. It defines one shut-off domain (never started: no VM boots here).
const URI = "qemu:///system";
const DOMAIN = `svc-hosts-probe-${process.pid}`;
let sshd: TestSshd;
let dir: string;
let undefine: (() => void) | undefined;
let target: HostTarget & { libvirt_uri: string; images_dir: string; disks_dir: string };

beforeAll(async () => {
  await ensureLibvirtd(URI);
  sshd = await startSshd();
  dir = mkdtempSync(join(os.tmpdir(), "svc-hosts-probe-"));
  // svc-vm's images layout: a directory with a disk, a bare qcow2, a download in progress.
  for (const d of ["alpha", ".partial"]) mkdirSync(join(dir, "images", d), { recursive: true });
  writeFileSync(join(dir, "images", "alpha", "disk.qcow2"), "");
  writeFileSync(join(dir, "images", ".partial", "disk.qcow2"), "");
  writeFileSync(join(dir, "images", "beta.qcow2"), "");
  target = {
    name: "probe",
    ssh_user: sshd.user,
    address: sshd.host,
    port: sshd.port,
    key_path: sshd.keyPath,
    libvirt_uri: URI,
    images_dir: join(dir, "images"),
    // Not made yet: the probe measures the nearest existing parent.
    disks_dir: join(dir, "vms", "not-yet"),
  };
  undefine = defineSvcDomain(URI, DOMAIN, dir);
});

afterAll(async () => {
  undefine?.();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("host capacity probe over SSH", () => {
  it("pins the host key on first contact: the key sshd presents", async () => {
    await expect(firstContactKey(target)).resolves.toBe(sshd.hostPublicKey);
  });

  it("measures memory, vCPUs, disk, images and the VMs svc made", async () => {
    const ex = hostExecutor({ ...target, host_key: sshd.hostPublicKey });
    try {
      const r = await probeHost(ex, target);
      if (!r.up) throw new Error(r.error);
      const c = r.capacity;
      expect(Math.abs(c.memory_total_mb - Math.floor(os.totalmem() / 2 ** 20))).toBeLessThanOrEqual(1);
      expect(c.memory_free_mb).toBeGreaterThan(0);
      expect(c.memory_free_mb).toBeLessThanOrEqual(c.memory_total_mb);
      expect(c.vcpus_total).toBe(Number(spawnSync("nproc", [], { encoding: "utf8" }).stdout.trim()));
      expect(c.images).toEqual(["alpha", "beta"]);
      expect(c.disk_path).toBe(dir);
      expect(c.disk_free_gb).toBeLessThanOrEqual(c.disk_total_gb);
      expect(c.vms.find((v) => v.name === DOMAIN)).toEqual({ name: DOMAIN, running: false, svc: true, memory_mb: 128, cpus: 1 });
      expect(c.vm_count).toBe(c.vms.filter((v) => v.svc).length);
      expect(c.vm_count).toBeGreaterThanOrEqual(1);
    } finally {
      await ex.close();
    }
  });

  it("asks the host one command for all of it, and names virsh's error when libvirt does not answer", async () => {
    const inner = hostExecutor({ ...target, host_key: sshd.hostPublicKey });
    let commands = 0;
    const ex: HostExecutor = { target: inner.target, run: (argv, o) => (commands++, inner.run(argv, o)), close: () => inner.close() };
    try {
      expect((await probeHost(ex, target)).up).toBe(true);
      expect(commands).toBe(1);
      const r = await probeHost(ex, { ...target, libvirt_uri: "test:///nowhere/none.xml" });
      expect(r).toMatchObject({ up: false, error: expect.stringMatching(/^virsh --connect test:\/\/\/nowhere\/none\.xml nodeinfo exited 1: /) });
    } finally {
      await ex.close();
    }
  });

  it("reports a host whose key is not the pinned one as down", async () => {
    const other = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "other")]);
    expect(other.status).toBe(0);
    const wrong = spawnSync("cat", [join(dir, "other.pub")], { encoding: "utf8" })
      .stdout.trim()
      .split(" ")
      .slice(0, 2)
      .join(" ");
    const ex = hostExecutor({ ...target, host_key: wrong });
    try {
      const r = await probeHost(ex, target);
      expect(r).toMatchObject({ up: false, error: expect.stringMatching(/host key/i) });
    } finally {
      await ex.close();
    }
  });

  it("reports an unreachable host as down, with the reason", async () => {
    const ex = hostExecutor({ ...target, port: 1, host_key: sshd.hostPublicKey }, 3000);
    try {
      expect(await probeHost(ex, target)).toMatchObject({ up: false, error: expect.stringMatching(/ECONNREFUSED|cannot reach/) });
    } finally {
      await ex.close();
    }
  });
});
