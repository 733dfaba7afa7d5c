import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SvcConfig } from "@svc/config";
import { SshExecutor, sharedSshPool } from "@svc/host";
import { createTestOperatorContext, startSshd, type TestSshd } from "@svc/testing";
import type { Operator, OperatorHost } from "../types";
import { createHostOperators } from "./index";
import { sshdTestConfig } from "./sshd-test-helpers";

// A play for a VM on a routed host, reached through that host. Three private sshds on this
// machine: `conf` is the configured host (ansible-playbook runs there), `routed` the host the try
// was routed to (the jump), `vm` stands for a VM's forward on the routed host's loopback.
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: leave a mark
      ansible.builtin.copy:
        dest: "{{ out }}"
        content: "reached {{ inventory_hostname }}\\n"
`;

let conf: TestSshd;
let routed: TestSshd;
let vm: TestSshd;
let dir: string;
let cfg: SvcConfig;
let op: Operator;

function routedHost(knownHostsPath: string): OperatorHost {
  const executor = new SshExecutor({ host: routed.host, port: routed.port, user: routed.user, keyPath: routed.keyPath, knownHostsPath: routed.knownHostsPath }, sharedSshPool());
  return {
    name: "lab2",
    executor,
    libvirtUri: "qemu:///system",
    disksDir: join(dir, "vms"),
    imagesDir: join(dir, "images"),
    jump: { user: routed.user, address: routed.host, port: routed.port, keyPath: routed.keyPath, knownHostsPath },
  };
}

async function play(host: OperatorHost, out: string) {
  const args = op.args.parse({ playbook: "mark.yml", hosts: [{ name: "web1", host: "127.0.0.1", port: vm.port, user: vm.user }], private_key: vm.keyPath, extra_vars: { out } });
  const ctx = { ...createTestOperatorContext(cfg, "configure"), host };
  return { ctx, result: await op.run(args, ctx).catch((e: unknown) => e) };
}

beforeAll(async () => {
  [conf, routed, vm] = await Promise.all([startSshd(), startSshd(), startSshd()]);
  dir = mkdtempSync(join(tmpdir(), "svc-ansible-jump-"));
  writeFileSync(join(dir, "mark.yml"), PLAYBOOK);
  cfg = sshdTestConfig(conf, dir, { SVC_ANSIBLE_STRATEGY: "linear" });
  op = createHostOperators().find((o) => o.name === "ansible_playbook")!;
}, 60_000);
afterAll(async () => {
  await sharedSshPool().closeAll();
  await Promise.all([conf?.stop(), routed?.stop(), vm?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

test("with ctx.host.jump the play runs on the configured host and reaches the VM through the routed host, whose key is checked against its pinned keys", async () => {
  const out = join(dir, "reached.txt");
  const { ctx, result } = await play(routedHost(routed.knownHostsPath), out);
  if (result instanceof Error) throw new Error(`${result.message}\n${ctx.text()}`);
  expect(result).toMatchObject({ hosts: ["web1"], ok: 1, failed: 0, unreachable: 0 });
  expect(readFileSync(out, "utf8")).toBe("reached web1\n");
  expect(ctx.text()).toContain(
    `ansible-playbook ${join(dir, "mark.yml")} on web1 (127.0.0.1:${vm.port}) via host lab2 (root@127.0.0.1:${routed.port}) from root@127.0.0.1:${conf.port}`,
  );
});

test("a routed host presenting a key other than its pinned one is not gone through: the play fails and never reaches the VM", async () => {
  const out = join(dir, "not-reached.txt");
  // The vm sshd's known_hosts pins nothing for the routed host's address and port.
  const { result } = await play(routedHost(vm.knownHostsPath), out);
  expect(result).toBeInstanceOf(Error);
  expect((result as Error).message).toMatch(/ansible-playbook mark\.yml failed/);
  expect(existsSync(out)).toBe(false);
});

test("on_host with ctx.host.jump plays on the routed host itself over SSH, with its key checked against its pinned keys", async () => {
  const out = join(dir, "host-mark.txt");
  const args = op.args.parse({ playbook: "mark.yml", on_host: true, extra_vars: { out } });
  const ctx = { ...createTestOperatorContext(cfg, "record"), host: routedHost(routed.knownHostsPath) };
  const result = await op.run(args, ctx).catch((e: unknown) => e);
  if (result instanceof Error) throw new Error(`${result.message}\n${ctx.text()}`);
  expect(result).toMatchObject({ hosts: ["lab2"], ok: 1, failed: 0 });
  expect(readFileSync(out, "utf8")).toBe("reached lab2\n");
  expect(ctx.text()).toContain(`on the host lab2 via host lab2 (root@127.0.0.1:${routed.port}) from root@127.0.0.1:${conf.port}`);
});

test("on_host on a cloud host reached through a bastion plays on the configured host (the cloud host's host side), never on the bastion", async () => {
  const out = join(dir, "cloud-host-side.txt");
  const args = op.args.parse({ playbook: "mark.yml", on_host: true, extra_vars: { out } });
  const cloud = {
    provider: "hetzner",
    region: "fsn1",
    sshUser: "root",
    sshFrom: ["127.0.0.1/32"],
    keyPath: vm.keyPath,
    driver: () => Promise.reject(new Error("no driver call expected")),
  };
  // The bastion (`routed`) pins no key here, so a play sent through it could not run.
  const { executor: _none, ...bastioned } = routedHost(vm.knownHostsPath);
  const ctx = { ...createTestOperatorContext(cfg, "record"), host: { ...bastioned, name: "hz", cloud } };
  const result = await op.run(args, ctx).catch((e: unknown) => e);
  if (result instanceof Error) throw new Error(`${result.message}\n${ctx.text()}`);
  expect(result).toMatchObject({ hosts: ["localhost"], ok: 1, failed: 0 });
  expect(readFileSync(out, "utf8")).toBe("reached localhost\n");
  expect(ctx.text()).toContain(`on the host side of cloud host hz (root@127.0.0.1:${conf.port})`);
  expect(ctx.text()).not.toContain(" via host hz");
  // Explicit hosts are still refused on a cloud host: its plays are for its VMs or its host side.
  const hostsArgs = op.args.parse({ playbook: "mark.yml", hosts: [{ name: "x", host: "127.0.0.1", port: vm.port, user: vm.user }], extra_vars: { out } });
  await expect(op.run(hostsArgs, ctx)).rejects.toThrow("host 'hz' is a cloud host: its plays are for its VMs (give vm) or its host side (on_host)");
});
