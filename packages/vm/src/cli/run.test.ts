import { runCli, type CliIo } from "./run";

function io(over: Partial<CliIo> = {}): CliIo & { outText: string[]; errText: string[] } {
  const outText: string[] = [];
  const errText: string[] = [];
  return {
    outText,
    errText,
    out: (t) => outText.push(t),
    err: (t) => errText.push(t),
    isTTY: false,
    ask: async () => "n",
    env: { SVC_VM_DRIVER: "libvirt", SVC_VM_IMAGES_DIR: "/nonexistent" },
    ...over,
  };
}

describe("svc-vm command line", () => {
  it("prints help for the tool and for every verb, exit 0", async () => {
    for (const argv of [["--help"], ["list", "--help"], ["info", "vm", "--help"], ["create", "vm", "-h"], ["delete", "--help"], ["ssh", "--help"]]) {
      const o = io();
      expect(await runCli(argv, o)).toBe(0);
      expect(o.outText.join("\n")).toMatch(/^Usage: svc-vm/);
    }
  });

  it("exits 2 with usage when given no command", async () => {
    const o = io();
    expect(await runCli([], o)).toBe(2);
  });

  it("reports usage errors on one line, and as JSON with -o json", async () => {
    const o = io();
    expect(await runCli(["frobnicate", "vm"], o)).toBe(2);
    expect(o.errText).toEqual(["svc-vm: error: unknown command 'frobnicate vm' (see svc-vm --help)"]);
    const j = io();
    expect(await runCli(["info", "vm", "Bad Name", "-o", "json"], j)).toBe(2);
    expect(JSON.parse(j.outText[0]!)).toMatchObject({ error: { code: "invalid_input" }, exit_code: 2 });
  });

  it("rejects unknown options, missing values and a bad -o", async () => {
    expect(await runCli(["list", "vm", "--colour"], io())).toBe(2);
    expect(await runCli(["create", "vm", "a", "-i"], io())).toBe(2);
    expect(await runCli(["list", "vm", "-o", "yaml"], io())).toBe(2);
  });

  it("create needs an image or an ISO, and checks -P iso and -P macs before touching the hypervisor", async () => {
    const none = io();
    expect(await runCli(["create", "vm", "n0"], none)).toBe(2);
    expect(none.errText[0]).toMatch(/needs an image: -i <image> .*or an ISO to boot: -P iso=/);
    const rel = io();
    expect(await runCli(["create", "vm", "n0", "-P", "iso=agent.iso"], rel)).toBe(2);
    expect(rel.errText[0]).toMatch(/invalid ISO path "agent.iso"/);
    const macs = io();
    expect(await runCli(["create", "vm", "n0", "-P", "iso=/srv/agent.iso", "-P", "nets=[default]", "-P", "macs=[52:54:00:0a:1b:2c,52:54:00:0a:1b:2d]"], macs)).toBe(2);
    expect(macs.errText[0]).toMatch(/one MAC per network/);
  });

  it("asks before deleting on a terminal and keeps the VM when the answer is no", async () => {
    const questions: string[] = [];
    const o = io({ isTTY: true, ask: async (q) => (questions.push(q), "n") });
    expect(await runCli(["delete", "vm", "keep-me"], o)).toBe(1);
    expect(questions).toEqual(["Delete VM 'keep-me' and its disks? [y/N] "]);
    expect(o.errText).toEqual(["not deleted"]);
  });

  it("lists images of an empty images directory without failing", async () => {
    const o = io();
    expect(await runCli(["list", "image", "-o", "json"], o)).toBe(0);
    expect(JSON.parse(o.outText[0]!)).toEqual([]);
  });
});
