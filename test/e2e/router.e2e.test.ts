// router_deployment on Debian 12 for real: a TCG router VM (nftables, dnsmasq) with its WAN on
// user-mode networking and its LAN on an isolated libvirt network the workflow creates, and a
// second VM on that LAN only, reached over SSH through the router's 127.0.0.1 forward. The DNS
// and HTTP servers the LAN reaches "outside" run on the host's 127.0.0.1 (10.0.2.2 to the router).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureTestImage, TEST_IMAGES_DIR, waitFor } from "@svc/testing";
import { forwardedPort, startProductStack, type ProductStack, type RunOutcome } from "./product-stack";
import { labSsh, probeScript, startHostDns, startHostHttp, type HostDns } from "./router-lab";
import { REPO_ROOT } from "./stack";

const LABEL = "rtre2e";
const ROUTER = `${LABEL}-rtr`;
const CLIENT = `${LABEL}-cli`;
const LAN = `${LABEL}-lan`; // made (and removed) by the workflow
const KEEP = `${LABEL}-keep`; // defined by the test before the workflow: delete must leave it
const DOMAIN = "lab.example.org";
const GW = "192.168.231.1";
const OUTSIDE = "www.outside.example.net";
const OUTSIDE_IP = "203.0.113.7";
const NETWORKS = [
  { name: LAN, cidr: "192.168.231.0/24", gateway: GW },
  { name: KEEP, cidr: "192.168.232.0/24", gateway: "192.168.232.1" },
];
const TOKEN = `svc-router-e2e-${process.pid}`;

let stack: ProductStack;
let dns: HostDns;
let http: Awaited<ReturnType<typeof startHostHttp>>;
let created: RunOutcome;
let clientIp = "";
const conf = () => ({
  action: "create",
  vm_name: ROUTER,
  domain: DOMAIN,
  image: "debian12",
  networks: NETWORKS,
  nets: ["user", LAN, KEEP],
  dns_forwarder: `10.0.2.2#${dns.port}`,
  dns_records: [{ name: "files", address: "192.168.231.10" }],
  memory_mb: 512,
  cpus: 1,
  disk_gb: 4,
  ssh_wait_timeout: 1200,
});
const virsh = (...args: string[]) => spawnSync("virsh", ["-c", "qemu:///system", ...args], { encoding: "utf8" });
const netActive = (name: string) => /^Active:\s+yes$/m.test(virsh("net-info", name).stdout ?? "");
const ssh = () => labSsh(stack.scratch.keyPath, () => forwardedPort(created, "tcp", 22));
const svcVm = (...args: string[]) =>
  spawnSync(
    path.join(REPO_ROOT, "packages/vm/bin/svc-vm"),
    [...args, "--images-dir", TEST_IMAGES_DIR, "--disks-dir", stack.scratch.disksDir, "--driver", "libvirt", "-o", "json"],
    {
      encoding: "utf8",
      timeout: 300_000,
    },
  );
const probe = (tag: string) => probeScript(tag, OUTSIDE, `http://10.0.2.2:${http.port}/`, GW);

beforeAll(async () => {
  stack = await startProductStack(LABEL, {});
  ensureTestImage();
  dns = await startHostDns({ [OUTSIDE]: OUTSIDE_IP });
  http = await startHostHttp(TOKEN);
  const xml = path.join(stack.scratch.disksDir, "..", "keep-net.xml");
  writeFileSync(xml, `<network><name>${KEEP}</name><bridge stp="on" delay="0"/></network>`);
  expect(virsh("net-define", xml).status).toBe(0);
  expect(virsh("net-start", KEEP).status).toBe(0);
}, 3_000_000);

afterAll(async () => {
  svcVm("delete", "vm", CLIENT, "-y");
  await stack?.stop();
  for (const n of [LAN, KEEP]) {
    virsh("net-destroy", n);
    virsh("net-undefine", n);
    for (const ext of ["xml", "created"]) spawnSync("rm", ["-f", `/var/lib/libvirt/svc-net-${n}.${ext}`]);
  }
  await dns?.close();
  await http?.close();
}, 300_000);

test("create on debian12 ends success, defines the LAN network (marked as its own) and uses the one that existed", async () => {
  created = await stack.run("router_deployment", conf(), 2_400_000);
  process.stdout.write(`[router] router_deployment create on debian12 (TCG): ${created.state} in ${created.seconds} s\n`);
  expect(created.state).toBe("success");
  expect(created.tis.cleanup_on_failure!.state).toBe("skipped");
  expect(netActive(LAN)).toBe(true);
  expect(existsSync(`/var/lib/libvirt/svc-net-${LAN}.created`)).toBe(true);
  expect(existsSync(`/var/lib/libvirt/svc-net-${KEEP}.created`)).toBe(false);
  expect(virsh("dumpxml", ROUTER).stdout).toContain("restrict=off");
}, 2_500_000);

test("a VM on the LAN only gets its address, gateway and resolver from the router's DHCP", async () => {
  const made = svcVm("create", "vm", CLIENT, "-i", "debian-test", "-P", "memory=384", "-P", `nets=[${LAN}]`, "--ssh-key", stack.scratch.pubKeyPath);
  expect(made.stderr).not.toMatch(/error/i);
  const mac = (JSON.parse(made.stdout) as { macs: string[] }).macs[0]!;
  // dnsmasq's lease file on the router: "<expiry> <mac> <ip> <hostname> <client-id>".
  clientIp = await waitFor(async () => new RegExp(`^\\d+ ${mac} (192\\.168\\.231\\.\\d+) `, "m").exec((await ssh().router("cat /var/lib/misc/dnsmasq.leases")).stdout ?? "")?.[1], {
    timeoutMs: 600_000,
    intervalMs: 5000,
    what: `a DHCP lease for ${CLIENT} (${mac})`,
  });
  const lease = await waitFor(async () => (await ssh().client(clientIp, "cat /run/systemd/netif/leases/*")).stdout, {
    timeoutMs: 300_000,
    intervalMs: 5000,
    what: `SSH to ${CLIENT} through the router`,
  });
  expect(lease).toMatch(new RegExp(`^ADDRESS=${clientIp.replace(/\./g, "\\.")}$`, "m"));
  expect(lease).toMatch(new RegExp(`^ROUTER=${GW}$`, "m"));
  expect(lease).toMatch(new RegExp(`^DNS=${GW}$`, "m"));
  expect(lease).toMatch(new RegExp(`^DOMAINNAME=${DOMAIN}$`, "m"));
  expect((await ssh().client(clientIp, "ip -4 route show default")).stdout).toContain(`default via ${GW} `);
}, 1_000_000);

test("it resolves lab names at the router and a name outside the lab through the router's upstream (the host's DNS)", async () => {
  // networkd writes no resolv.conf: use the resolver DHCP gave.
  const r = await ssh().client(
    clientIp,
    `printf 'nameserver %s\\noptions timeout:3 attempts:2\\n' "$(sed -n 's/^DNS=//p' /run/systemd/netif/leases/* | head -n1)" >/etc/resolv.conf && for n in ${ROUTER}.${DOMAIN} files.${DOMAIN} ${OUTSIDE}; do getent ahostsv4 "$n" | head -n1; done`,
  );
  const lines = r.stdout.trim().split("\n");
  expect(lines[0]).toMatch(new RegExp(`^(${GW}|192\\.168\\.232\\.1) `));
  expect(lines[1]).toMatch(/^192\.168\.231\.10 /);
  expect(lines[2]).toMatch(new RegExp(`^${OUTSIDE_IP.replace(/\./g, "\\.")} `));
  expect(dns.questions).toContain(OUTSIDE);
  expect(dns.questions.filter((q) => q.endsWith(DOMAIN))).toEqual([]);
}, 300_000);

test("it reaches the host's HTTP server at 10.0.2.2 through the router's NAT, and the masquerade counter shows it", async () => {
  const before = http.hits();
  const r = await ssh().client(clientIp, `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://10.0.2.2:${http.port}/", timeout=20).read().decode())'`);
  expect(r.stdout.trim()).toBe(TOKEN);
  expect(http.hits()).toBe(before + 1);
  const chain = (await ssh().router("nft list chain inet svc_router postrouting")).stdout;
  const packets = Number(new RegExp(`counter packets (\\d+) bytes \\d+ masquerade comment "${LAN}"`).exec(chain)?.[1] ?? -1);
  process.stdout.write(`[router] masquerade counter for ${LAN}: ${packets} packets\n`);
  expect(packets).toBeGreaterThan(0);
  const up = await ssh().client(clientIp, `python3 -c '${probe("up").replace(/'/g, "'\\''")}'`);
  expect(up.stdout.trim()).toBe("PROBE up dns=ok http=ok gw=ok");
}, 300_000);

test("a second create with the same params adopts the router and its role changes nothing", async () => {
  const again = await stack.run("router_deployment", conf(), 1_200_000);
  process.stdout.write(`[router] second create: ${again.state} in ${again.seconds} s\n`);
  expect(again.state).toBe("success");
  expect(again.tis.create_vm!.output).toMatchObject({ name: ROUTER, created: false, adopted: true });
  expect(again.tis.configure!.output).toMatchObject({ changed: 0, failed: 0 });
}, 1_300_000);

test("with the router stopped the LAN VM reaches nothing: no DNS, no HTTP, no gateway", async () => {
  // Nothing reaches the LAN VM without the router, so it reports on its serial console (a file on the host).
  const script = probe("down").replace(/'/g, "'\\''");
  const start = await ssh().client(
    clientIp,
    `printf '%s' '${script}' >/root/probe.py && (setsid sh -c 'sleep 15; python3 /root/probe.py >/dev/ttyS0 2>&1' </dev/null >/dev/null 2>&1 &)`,
  );
  expect(start.status).toBe(0);
  expect(virsh("destroy", ROUTER).status).toBe(0);
  const consoleLog = path.join(stack.scratch.disksDir, CLIENT, "console.log");
  const line = await waitFor(() => /PROBE down [^\r\n]*/.exec(readFileSync(consoleLog, "utf8"))?.[0], {
    timeoutMs: 240_000,
    intervalMs: 3000,
    what: "the probe's line on the console",
  });
  expect(line.trim()).toBe("PROBE down dns=fail http=fail gw=fail");
}, 300_000);

test("delete removes the router, its disks and the network it created; the network that existed stays", async () => {
  expect(svcVm("delete", "vm", CLIENT, "-y").status).toBe(0);
  const del = await stack.run("router_deployment", { ...conf(), action: "delete" }, 600_000);
  expect(del.state).toBe("success");
  expect(del.tis.delete_vm!.state).toBe("success");
  expect(del.tis.remove_host_config!.state).toBe("success");
  expect(virsh("domstate", ROUTER).status).not.toBe(0);
  expect(existsSync(path.join(stack.scratch.disksDir, ROUTER))).toBe(false);
  expect(virsh("net-info", LAN).status).not.toBe(0);
  expect(existsSync(`/var/lib/libvirt/svc-net-${LAN}.created`)).toBe(false);
  expect(netActive(KEEP)).toBe(true);
}, 700_000);
