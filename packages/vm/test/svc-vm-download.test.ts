import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http, { type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLibvirtd } from "@svc/testing";
import { downloadImage } from "../src/download/download-image";
import { runSvcVm, SVC_VM_BIN } from "./svc-vm-run";

jest.setTimeout(120_000);

const IMG = "debian-12-genericcloud-amd64.qcow2";
let work: string;
let imagesDir: string;
let server: Server;
let base: string;
let disk: Buffer;
let disk2: Buffer;
const hits = new Map<string, number>();
const sha = (alg: string, b: Buffer | string) => createHash(alg).update(b).digest("hex");

function qcow2(path: string, size: string): Buffer {
  execFileSync("qemu-img", ["create", "-q", "-f", "qcow2", path, size]);
  return readFileSync(path);
}

function routes(): Record<string, (res: http.ServerResponse) => void> {
  const send = (body: Buffer | string) => (res: http.ServerResponse) => res.writeHead(200, { "content-length": Buffer.byteLength(body) }).end(body);
  return {
    [`/img/${IMG}`]: send(disk),
    "/img/v2.qcow2": send(disk2),
    "/img/not-qcow2.img": send("just text, not an image\n"),
    // Debian's layout: SHA-512, one line per file of the release.
    "/img/SHA512SUMS": send(`${sha("sha512", "x")}  debian-12-genericcloud-amd64.json\n${sha("sha512", disk)}  ${IMG}\n`),
    // CentOS/Rocky "latest" layout: one BSD line naming the dated build.
    "/img/CHECKSUM": send(`# debian-12-20250101.qcow2: ${disk.length} bytes\nSHA256 (debian-12-20250101.qcow2) = ${sha("sha256", disk)}\n`),
    "/moved": (res) => res.writeHead(302, { location: `/img/${IMG}` }).end(),
    "/stall": (res) => {
      res.writeHead(200, { "content-length": disk.length * 2 });
      res.write(disk); // then nothing more until the client gives up
    },
    "/truncated": (res) => {
      res.writeHead(200, { "content-length": disk.length * 2 });
      res.write(disk, () => res.destroy());
    },
  };
}

const svcVm = (args: string[]) => runSvcVm(args, { ...process.env, SVC_VM_IMAGES_DIR: imagesDir, SVC_VM_DRIVER: "libvirt" }, 60_000);

beforeAll(async () => {
  await ensureLibvirtd();
  work = mkdtempSync(join(tmpdir(), "svc-download-"));
  imagesDir = join(work, "images");
  disk = qcow2(join(work, "a.qcow2"), "64M");
  disk2 = qcow2(join(work, "b.qcow2"), "128M");
  const table = routes();
  server = http.createServer((req, res) => {
    const path = req.url ?? "";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = table[path];
    if (route) route(res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  rmSync(work, { recursive: true, force: true });
});

describe("svc-vm download image against an HTTP server on 127.0.0.1", () => {
  it("refuses a wrong SHA-256: exit 1, both digests named, nothing left in the images directory", async () => {
    const wrong = "0".repeat(64);
    const r = await svcVm(["download", "image", "debian12", "--url", `${base}/img/${IMG}`, "--sha256", wrong]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`expected ${wrong}, got ${sha("sha256", disk)}; the download was removed`);
    expect(readdirSync(imagesDir)).toEqual([]);
  });

  it("downloads with the right SHA-256, shows progress and registers the image with its OS and cloud user", async () => {
    const r = await svcVm(["download", "image", "debian12", "--url", `${base}/img/${IMG}`, "--sha256", sha("sha256", disk).toUpperCase(), "-o", "json"]);
    expect(r.code).toBe(0);
    const mib = (disk.length / 1024 / 1024).toFixed(1);
    expect(r.stderr).toContain(`debian12: ${mib} MiB / ${mib} MiB (100%)`);
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: "debian12",
      os: "debian12",
      ssh_user: "debian",
      downloaded: true,
      bytes: disk.length,
      checksum: { algorithm: "sha256", hex: sha("sha256", disk) },
    });
    expect(readFileSync(join(imagesDir, "debian12", "disk.qcow2")).equals(disk)).toBe(true);
    expect(JSON.parse(readFileSync(join(imagesDir, "debian12", "image.json"), "utf8"))).toMatchObject({
      os: "debian12",
      boot: "disk",
      key_injection: "cloud-init",
      ssh_user: "debian",
    });
    expect(readdirSync(imagesDir)).toEqual(["debian12"]);
    const list = await svcVm(["list", "image", "-o", "json"]);
    expect(JSON.parse(list.stdout)).toEqual([
      { name: "debian12", path: join(imagesDir, "debian12"), boot: "disk", description: expect.stringMatching(/Debian 12/), os: "debian12" },
    ]);
    const table = await svcVm(["list", "image"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+OS\s+BOOT\s+PATH$/);
    expect(table.stdout).toMatch(/^debian12\s+debian12\s+disk\s+/m);
  });

  it("keeps an image that is already registered, without fetching anything", async () => {
    const before = hits.get(`/img/${IMG}`);
    const r = await svcVm(["download", "image", "debian12", "--url", `${base}/img/${IMG}`, "--sha256", sha("sha256", disk)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^image debian12 already exists at .*debian12\/disk\.qcow2; kept \(--force downloads it again\)/);
    expect(hits.get(`/img/${IMG}`)).toBe(before);
  });

  it("--force replaces it; a Debian-style SHA512SUMS is matched by the download's file name", async () => {
    const r = await svcVm(["download", "image", "debian12", "--url", `${base}/moved`, "--checksum-url", `${base}/img/SHA512SUMS`, "--force", "-o", "json"]);
    // The file name the checksum list is searched for is the URL's: /moved is not listed.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has no entry for moved \(it lists: debian-12-genericcloud-amd64\.json, debian-12-genericcloud-amd64\.qcow2\)/);
    const v2 = await svcVm(["download", "image", "debian12", "--url", `${base}/img/v2.qcow2`, "--sha256", sha("sha256", disk2), "--force", "-o", "json"]);
    expect(v2.code).toBe(0);
    expect(readFileSync(join(imagesDir, "debian12", "disk.qcow2")).equals(disk2)).toBe(true);
    const s512 = await svcVm(["download", "image", "debian12", "--url", `${base}/img/${IMG}`, "--checksum-url", `${base}/img/SHA512SUMS`, "--force", "-o", "json"]);
    expect(s512.code).toBe(0);
    expect(JSON.parse(s512.stdout).checksum).toEqual({ algorithm: "sha512", hex: sha("sha512", disk) });
    expect(readFileSync(join(imagesDir, "debian12", "disk.qcow2")).equals(disk)).toBe(true);
    expect(readdirSync(imagesDir)).toEqual(["debian12"]);
  });

  it("follows a redirect and takes the single entry of a CentOS/Rocky-style checksum file", async () => {
    const r = await svcVm(["download", "image", "rocky9", "--url", `${base}/moved`, "--checksum-url", `${base}/img/CHECKSUM`, "-o", "json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "rocky9", os: "rocky9", ssh_user: "rocky", checksum: { algorithm: "sha256", hex: sha("sha256", disk) } });
    rmSync(join(imagesDir, "rocky9"), { recursive: true });
  });

  it("an unknown name lists the names it knows; a mirror URL without a checksum is refused", async () => {
    const r = await svcVm(["download", "image", "ubuntu2404"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('svc-vm: error: unknown image "ubuntu2404"; svc-vm download image knows: centos9stream, centos10stream, rocky9, debian12\n');
    const bare = await svcVm(["download", "image", "centos9stream", "--url", `${base}/img/${IMG}`]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--url needs the image's --sha256 HEX \(or --checksum-url URL\)/);
  });

  it("a 404, a cut-off transfer and a file that is not qcow2 fail clearly and leave nothing behind", async () => {
    const nf = await svcVm(["download", "image", "centos9stream", "--url", `${base}/img/nope.qcow2`, "--sha256", sha("sha256", disk), "-o", "json"]);
    expect(nf.code).toBe(1);
    expect(nf.stderr.trim().split("\n").pop()).toBe(`svc-vm: error: ${base}/img/nope.qcow2 answered HTTP 404 Not Found`);
    expect(JSON.parse(nf.stdout).error.code).toBe("download_failed");
    const cut = await svcVm(["download", "image", "centos9stream", "--url", `${base}/truncated`, "--sha256", sha("sha256", disk)]);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(new RegExp(`svc-vm: error: the transfer from ${base}/truncated broke off after \\d+ of ${disk.length * 2} bytes`));
    const text = "just text, not an image\n";
    const bad = await svcVm(["download", "image", "centos9stream", "--url", `${base}/img/not-qcow2.img`, "--sha256", sha("sha256", text)]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a qcow2 image .*nothing was registered/);
    expect(readdirSync(imagesDir)).toEqual(["debian12"]);
  });

  it("Ctrl-C during the transfer removes the partial download", async () => {
    const child = spawn(SVC_VM_BIN, ["download", "image", "centos10stream", "--url", `${base}/stall`, "--sha256", sha("sha256", disk)], {
      env: { ...process.env, SVC_VM_IMAGES_DIR: imagesDir, SVC_VM_DRIVER: "libvirt" },
    });
    let stderr = "";
    const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
    await new Promise<void>((ok) =>
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/centos10stream: [\d.]+ MiB \/ /.test(stderr)) ok();
      }),
    );
    expect(readdirSync(imagesDir).filter((f) => f.startsWith(".download-centos10stream-"))).toHaveLength(1);
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    expect(stderr).toContain(`svc-vm: error: download of ${base}/stall interrupted`);
    expect(readdirSync(imagesDir)).toEqual(["debian12"]);
  });

  it("--force refuses while VMs are created on the image, and keeps it", async () => {
    const o = { imagesDir, name: "debian12", url: `${base}/img/v2.qcow2`, sha256: sha("sha256", disk2), force: true };
    await expect(downloadImage({ ...o, vmsUsing: async () => ["web1", "web2"] })).rejects.toThrow(
      "image 'debian12' is the base of VM(s) web1, web2; replacing it would break their disks: delete them first",
    );
    expect(readFileSync(join(imagesDir, "debian12", "disk.qcow2")).equals(disk)).toBe(true);
  });
});
