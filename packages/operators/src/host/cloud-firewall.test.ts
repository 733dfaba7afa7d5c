import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { loadConfig } from "@svc/config";
import { LocalExecutor } from "@svc/host";
import { createTestOperatorContext } from "@svc/testing";
import { HetznerDriver } from "../../../vm/src/hetzner/driver";
import { startHetznerFake, type HetznerFake } from "../../../vm/test/hetzner-fake";
import { createVmOperators } from "./vm-operators";

// vm_create of a product VM on a cloud host (the Hetzner driver against its fake on 127.0.0.1):
// the VM's own firewall opens SSH to where svc connects from and the product's ports to allow_from,
// stored as the fake's firewall object; a host whose SSH source is unknown, or allow_from on a
// libvirt host, is refused before anything is made.
jest.setTimeout(60_000);

let hz: HetznerFake;
let dir: string;
beforeAll(async () => {
  hz = await startHetznerFake();
  dir = mkdtempSync(join(os.tmpdir(), "svc-cloud-fw-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "key")]);
});
afterAll(async () => {
  await hz?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ops = createVmOperators({ executor: () => new LocalExecutor({ env: process.env }) });
const vmCreate = ops.find((o) => o.name === "vm_create")!;
const config = () => loadConfig({ DATABASE_URL: "postgres://unused", SVC_SSH_HOST: "local", SVC_LOG_LEVEL: "silent" });
function cloudCtx(sshFrom: string[]) {
  const ctx = createTestOperatorContext(config());
  const driver = new HetznerDriver({ location: "fsn1", endpoint: hz.endpoint, token: hz.token, sshUser: "root", pollMs: 10 });
  Object.assign(ctx, {
    host: {
      name: "hz",
      libvirtUri: "",
      disksDir: "",
      imagesDir: "",
      cloud: { provider: "hetzner", region: "fsn1", sshUser: "root", sshFrom, keyPath: join(dir, "key"), driver: () => Promise.resolve(driver) },
    },
  });
  return ctx;
}
const args = (extra: Record<string, unknown>) => vmCreate.args.parse({ name: "reg1", image: "debian12", memory_mb: 2048, cpus: 2, nets: ["default"], ...extra });

test("a registry VM's firewall object opens 22 to svc's address and 5000 to allow_from, nothing else", async () => {
  const ctx = cloudCtx(["192.0.2.5/32"]);
  await vmCreate.run(args({ product: "registry", product_options: { registry_type: "distribution" }, allow_from: ["198.51.100.0/24"] }), ctx);
  const fws = [...hz.firewalls.values()];
  expect(fws.map((f) => f.labels)).toEqual([{ "managed-by": "svc", "svc-vm": "reg1" }]);
  expect(fws[0]!.rules.map((r: Record<string, unknown>) => [r.direction, r.protocol, r.port, r.source_ips])).toEqual([
    ["in", "tcp", "22", ["192.0.2.5/32"]],
    ["in", "tcp", "5000", ["198.51.100.0/24"]],
  ]);
  expect(ctx.text()).toContain("VM reg1's own firewall (registry) opens only: tcp/22 from 192.0.2.5/32; tcp/5000 from 198.51.100.0/24");
});

test("a product VM on a host whose SSH source svc cannot tell is refused before anything is made", async () => {
  const before = hz.servers.size;
  await expect(vmCreate.run(args({ name: "ca1", product: "ca", allow_from: [] }), cloudCtx([]))).rejects.toThrow(
    /host 'hz': svc cannot tell the address its SSH comes from, so the firewall of ca VM 'ca1' cannot let it in: set the host's ssh_from/,
  );
  expect(hz.servers.size).toBe(before);
});

test("allow_from is refused on a libvirt host and without a product; an entry that is not a network is refused by the args", async () => {
  const ctx = createTestOperatorContext(config());
  await expect(vmCreate.run(args({ product: "ca", allow_from: ["198.51.100.0/24"] }), ctx)).rejects.toThrow(/opens a cloud VM's firewall; host 'local' is a libvirt host/);
  expect(vmCreate.args.safeParse({ name: "x", image: "debian12", allow_from: ["198.51.100.0/24"] }).error?.issues[0]?.message).toBe(
    "allow_from opens a product's ports: give product",
  );
  expect(vmCreate.args.safeParse({ name: "x", image: "debian12", product: "ca", allow_from: ["198.51.100.7/24"] }).error?.issues[0]?.message).toBe(
    "'198.51.100.7/24' has host bits set: the network is 198.51.100.0/24",
  );
});
