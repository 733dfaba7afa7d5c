// playbooks/router-host.yml run for real on this host, as router_deployment runs it (local
// connection, as root): isolated libvirt networks with no host address, so no traffic leaves.
// A second run changes nothing, a network virsh cannot start fails the run, and absent removes them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureLibvirtd } from "@svc/testing";
import { CATALOG_PATHS } from "../src/paths";

const PREFIX = `svct-rh${process.pid}`;
const NETS = [
  { name: `${PREFIX}-a`, cidr: "10.231.1.0/24" },
  { name: `${PREFIX}-b`, cidr: "10.231.2.0/24" },
];
const BROKEN = `${PREFIX}-broken`;
const FOREIGN = `${PREFIX}-foreign`;
const PLAY_TIMEOUT = 300_000;
let dir: string;

const virsh = (...args: string[]) => spawnSync("virsh", ["-c", "qemu:///system", ...args], { encoding: "utf8" });
/** name → {active, autostart} for this test's networks, from `virsh net-info`. */
function netState(name: string): { active: boolean; autostart: boolean } | null {
  const r = virsh("net-info", name);
  if (r.status !== 0) return null;
  const field = (k: string) => new RegExp(`^${k}:\\s+yes$`, "m").test(r.stdout);
  return { active: field("Active"), autostart: field("Autostart") };
}
function removeNet(name: string): void {
  virsh("net-destroy", name);
  virsh("net-undefine", name);
  rmSync(`/var/lib/libvirt/svc-net-${name}.xml`, { force: true });
}

/** Runs router-host.yml on this host with the given extra vars; the recap's counts and the output. */
function play(vars: Record<string, unknown>): { status: number | null; changed: number; failed: number; out: string } {
  const varsFile = path.join(dir, "vars.json");
  writeFileSync(varsFile, JSON.stringify(vars));
  const r = spawnSync("ansible-playbook", ["-i", "localhost,", "-c", "local", "-e", `@${varsFile}`, "router-host.yml"], {
    cwd: CATALOG_PATHS.playbooksDir,
    encoding: "utf8",
    timeout: PLAY_TIMEOUT - 10_000,
    env: { ...process.env, ANSIBLE_NOCOLOR: "1" },
  });
  const recap = /localhost\s*: ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)/.exec(r.stdout);
  return { status: r.status, changed: Number(recap?.[1] ?? -1), failed: Number(recap?.[2] ?? -1), out: `${r.stdout}${r.stderr}` };
}

beforeAll(async () => {
  await ensureLibvirtd();
  dir = mkdtempSync(path.join(tmpdir(), "svc-router-host-"));
});
afterAll(() => {
  for (const n of [...NETS.map((x) => x.name), BROKEN, FOREIGN]) removeNet(n);
  rmSync(dir, { recursive: true, force: true });
});

test(
  "networks: defines, starts and autostarts each lab network; a second run reports no change",
  () => {
    const first = play({ networks: NETS, router_host_state: "networks" });
    expect({ status: first.status, failed: first.failed }).toEqual({ status: 0, failed: 0 });
    expect(first.changed).toBeGreaterThan(0);
    for (const n of NETS) expect(netState(n.name)).toEqual({ active: true, autostart: true });
    const second = play({ networks: NETS, router_host_state: "networks" });
    expect({ status: second.status, changed: second.changed, failed: second.failed }).toEqual({ status: 0, changed: 0, failed: 0 });
  },
  2 * PLAY_TIMEOUT,
);

test(
  "networks: a lab network virsh fails to start fails the run with virsh's error",
  () => {
    // Defined already (so the play keeps the definition) with a bridge name the kernel refuses.
    const xml = path.join(dir, "broken.xml");
    writeFileSync(xml, `<network><name>${BROKEN}</name><bridge name="svc-bridge-name-too-long"/></network>`);
    expect(virsh("net-define", xml).status).toBe(0);
    const r = play({ networks: [{ name: BROKEN, cidr: "10.231.9.0/24" }], router_host_state: "networks" });
    expect({ status: r.status, failed: r.failed }).toEqual({ status: 2, failed: 1 });
    expect(r.out).toMatch(/TASK \[router_network : Start the networks that are not running\][\s\S]*failed: \[localhost\][^\n]*svc-bridge-name-too-long/);
    expect(netState(BROKEN)).toEqual({ active: false, autostart: false });
  },
  PLAY_TIMEOUT,
);

test(
  "absent: stops and undefines the lab networks and removes their definitions; a second run reports no change",
  () => {
    const first = play({ networks: NETS, router_host_state: "absent" });
    expect({ status: first.status, failed: first.failed }).toEqual({ status: 0, failed: 0 });
    expect(first.changed).toBeGreaterThan(0);
    for (const n of NETS) expect(netState(n.name)).toBeNull();
    const second = play({ networks: NETS, router_host_state: "absent" });
    expect({ status: second.status, changed: second.changed, failed: second.failed }).toEqual({ status: 0, changed: 0, failed: 0 });
  },
  2 * PLAY_TIMEOUT,
);

test(
  "absent removes only the networks present defined: a network that existed before is kept, running",
  () => {
    const xml = path.join(dir, "foreign.xml");
    writeFileSync(xml, `<network><name>${FOREIGN}</name><bridge stp="on" delay="0"/></network>`);
    expect(virsh("net-define", xml).status).toBe(0);
    expect(virsh("net-start", FOREIGN).status).toBe(0);
    const nets = [NETS[0]!, { name: FOREIGN, cidr: "10.231.7.0/24" }];
    expect(play({ networks: nets, router_host_state: "networks" })).toMatchObject({ status: 0, failed: 0 });
    const gone = play({ networks: nets, router_host_state: "absent" });
    expect({ status: gone.status, failed: gone.failed }).toEqual({ status: 0, failed: 0 });
    expect(netState(NETS[0]!.name)).toBeNull();
    expect(netState(FOREIGN)).toEqual({ active: true, autostart: true });
  },
  2 * PLAY_TIMEOUT,
);
