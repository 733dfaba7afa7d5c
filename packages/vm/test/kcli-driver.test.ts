import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { LocalExecutor } from "@svc/host";
import { KcliDriver } from "../src/kcli/driver";
import { createVmDriver, onPath } from "../src/select-driver";
import { describeVmDriverConformance } from "./driver-conformance";

// kcli cannot be installed here: a stand-in on PATH records its argv and keeps a tiny state
// file, so the driver's argv contract and output parsing are what is tested.
const FAKE = `#!/usr/bin/env node
const fs = require("fs");
const a = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_KCLI_LOG, JSON.stringify(a) + "\\n");
const statePath = process.env.FAKE_KCLI_STATE;
const state = fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, "utf8")) : {};
const save = () => fs.writeFileSync(statePath, JSON.stringify(state));
const images = (process.env.FAKE_KCLI_IMAGES || "").split(",");
const cmd = a.slice(0, 2).join(" ");
if (cmd === "list vm") { console.log(JSON.stringify(Object.values(state))); process.exit(0); }
if (cmd === "list image") { console.log("+--------+\\n| Images |\\n+--------+"); for (const i of images) console.log("| /var/lib/libvirt/images/" + i + " |"); console.log("+--------+"); process.exit(0); }
if (cmd === "info vm") { const v = state[a[2]]; if (!v) { console.error("VM " + a[2] + " not found"); process.exit(1); } console.log(JSON.stringify(v)); process.exit(0); }
if (cmd === "delete vm") { delete state[a[2]]; save(); console.log("vm " + a[2] + " deleted"); process.exit(0); }
if (cmd === "create vm") {
  const name = a[2], image = a.includes("-i") ? a[a.indexOf("-i") + 1] : "";
  if (image && !images.includes(image)) { console.error("Image " + image + " not found"); process.exit(1); }
  const p = {}; a.forEach((x, i) => { if (x === "-P") { const eq = a[i + 1].indexOf("="); p[a[i + 1].slice(0, eq)] = a[i + 1].slice(eq + 1); } });
  const nets = p.nets.includes("{") ? JSON.parse(p.nets).map((n) => ({ net: n.name, mac: n.mac })) : [{ net: "default" }];
  state[name] = { name, status: "up", ip: "192.0.2.10", image, iso: p.iso || "", cpus: Number(p.numcpus), memory: Number(p.memory), user: "cloud-user", nets, disks: [] };
  save(); console.log("vm " + name + " created"); process.exit(0);
}
console.error("fake kcli: unsupported " + a.join(" ")); process.exit(2);
`;

let dir: string;
let driver: KcliDriver;
const savedPath = process.env.PATH;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-fake-kcli-"));
  writeFileSync(join(dir, "kcli"), FAKE);
  chmodSync(join(dir, "kcli"), 0o755);
  process.env.PATH = `${dir}${delimiter}${savedPath}`;
  process.env.FAKE_KCLI_LOG = join(dir, "argv.log");
  process.env.FAKE_KCLI_STATE = join(dir, "state.json");
  process.env.FAKE_KCLI_IMAGES = "centos9stream,debian-test";
  // As svc-vm runs it: a person's command passes its whole environment on (the fake reads FAKE_KCLI_*).
  driver = new KcliDriver(new LocalExecutor({ env: process.env, inheritAll: true }));
});
afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

const calls = (): string[][] =>
  readFileSync(join(dir, "argv.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describeVmDriverConformance("kcli (argv contract)", () => ({ driver, image: "debian-test", prefix: "kc", nets: ["default"], sshKeys: [] }));

describe("kcli argv contract", () => {
  it("maps create to kcli create vm NAME -i IMAGE -P memory= -P numcpus= -P disks=[..] -P nets=[..] --wait", async () => {
    await driver.create({ name: "kc-argv", image: "centos9stream", memoryMb: 4096, cpus: 2, disksGb: [50, 10], nets: ["default", "lab"], sshKeys: [] }, { wait: true });
    expect(calls()).toContainEqual([
      "create",
      "vm",
      "kc-argv",
      "-i",
      "centos9stream",
      "-P",
      "memory=4096",
      "-P",
      "numcpus=2",
      "-P",
      "disks=[50,10]",
      "-P",
      "nets=[default,lab]",
      "--wait",
    ]);
    const info = await driver.info("kc-argv");
    expect(info).toMatchObject({ name: "kc-argv", state: "running", ip: "192.0.2.10", ssh_host: "192.0.2.10", ssh_port: 22, ssh_user: "cloud-user", memory_mb: 4096, cpus: 2 });
    await driver.delete("kc-argv");
    expect(calls()).toContainEqual(["delete", "vm", "kc-argv", "-y"]);
    expect(calls()).toContainEqual(["info", "vm", "kc-argv", "-o", "json"]);
    expect(calls()).toContainEqual(["list", "vm", "-o", "json"]);
    expect(calls()).toContainEqual(["list", "image"]);
  });

  it("boots an ISO with -P iso= and no -i, and pins MACs through nets given as dicts", async () => {
    const macs = ["52:54:00:0a:1b:2c", "52:54:00:0a:1b:2d"];
    const r = await driver.create({ name: "kc-iso", iso: "/srv/isos/agent.x86_64.iso", memoryMb: 2048, cpus: 2, disksGb: [30], nets: ["default", "lab"], macs, sshKeys: [] });
    expect(calls()).toContainEqual([
      "create",
      "vm",
      "kc-iso",
      "-P",
      "iso=/srv/isos/agent.x86_64.iso",
      "-P",
      "memory=2048",
      "-P",
      "numcpus=2",
      "-P",
      "disks=[30]",
      "-P",
      'nets=[{"name":"default","mac":"52:54:00:0a:1b:2c"},{"name":"lab","mac":"52:54:00:0a:1b:2d"}]',
    ]);
    expect(r.info).toMatchObject({ name: "kc-iso", image: null, iso: "/srv/isos/agent.x86_64.iso", nets: ["default", "lab"], macs });
    expect(
      (await driver.create({ name: "kc-iso", iso: "/srv/isos/agent.x86_64.iso", memoryMb: 2048, cpus: 2, disksGb: [30], nets: ["default", "lab"], macs, sshKeys: [] })).created,
    ).toBe(false);
    await expect(
      driver.create({ name: "kc-iso", iso: "/srv/isos/other.iso", memoryMb: 2048, cpus: 2, disksGb: [30], nets: ["default", "lab"], macs, sshKeys: [] }),
    ).rejects.toThrow(/iso: has \/srv\/isos\/agent.x86_64.iso/);
    await driver.delete("kc-iso");
  });

  it("is chosen automatically when kcli is on PATH", () => {
    expect(onPath("kcli", process.env.PATH ?? "")).toBe(true);
    const d = createVmDriver(
      { imagesDir: "/nonexistent", disksDir: "/nonexistent", libvirtUri: "qemu:///system", virtType: "auto", driver: "auto", sshPubkeyPaths: [] },
      new LocalExecutor({ env: process.env, inheritAll: true }),
      process.env.PATH ?? "",
    );
    expect(d.name).toBe("kcli");
  });
});
