import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../ports";
import { TEST_IMAGE_NAME, TEST_IMAGES_DIR } from "./test-image";
import { testSshdConfig } from "./sshd-config";

/** The directory of a test host before its daemons start: keys, sshd_config, images, disks. */
export interface HostFiles {
  dir: string;
  imagesDir: string;
  disksDir: string;
  port: number;
  keyPath: string;
  knownHostsPath: string;
  hostKey: string;
}

function sh(argv: string[]): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv[0]} failed: ${r.stderr || String(r.error)}`);
}

/** Hard-link a file (same filesystem) or copy it. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** Put image `name` of TEST_IMAGES_DIR into `imagesDir`: `<name>/` with its files, or `<name>.qcow2`. */
function addImage(name: string, imagesDir: string): void {
  const dirPath = join(TEST_IMAGES_DIR, name);
  if (existsSync(dirPath) && statSync(dirPath).isDirectory()) {
    const src = realpathSync(dirPath);
    mkdirSync(join(imagesDir, name), { mode: 0o755 });
    for (const f of readdirSync(src)) if (statSync(join(src, f)).isFile()) linkOrCopy(join(src, f), join(imagesDir, name, f));
    return;
  }
  const file = join(TEST_IMAGES_DIR, `${name}.qcow2`);
  if (!existsSync(file)) throw new Error(`image ${name} is not in ${TEST_IMAGES_DIR} (ensureTestImage() builds the test image)`);
  linkOrCopy(realpathSync(file), join(imagesDir, `${name}.qcow2`));
}

function sshdConfig(sshDir: string, port: number): string {
  const file = (name: string) => join(sshDir, name);
  return testSshdConfig({
    port,
    listen: ["127.0.0.1"],
    hostKey: file("host_ed25519"),
    pidFile: file("sshd.pid"),
    authorizedKeys: file("authorized_keys"),
    user: "root",
    maxSessions: 20,
  });
}

/**
 * Make a test host's directory (traversable by the qemu user): its host and client keys, a
 * known_hosts pinning the host key, sshd_config on a spare 127.0.0.1 port, images (hard links
 * to TEST_IMAGES_DIR's; default the test image when it is built) and an empty disks directory.
 */
export async function prepareHostFiles(name: string, images?: string[]): Promise<HostFiles> {
  const dir = mkdtempSync(join(tmpdir(), `svc-host-${name}-`));
  chmodSync(dir, 0o755);
  const [imagesDir, disksDir, sshDir] = ["images", "disks", "ssh"].map((d) => join(dir, d)) as [string, string, string];
  for (const d of [imagesDir, disksDir, sshDir]) mkdirSync(d, { mode: 0o755 });
  sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", `svc-test-host-${name}`, "-f", join(sshDir, "host_ed25519")]);
  sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", `svc-test-client-${name}`, "-f", join(sshDir, "client_ed25519")]);
  writeFileSync(join(sshDir, "authorized_keys"), readFileSync(join(sshDir, "client_ed25519.pub")), { mode: 0o644 });
  const port = await freePort();
  const hostKey = readFileSync(join(sshDir, "host_ed25519.pub"), "utf8").trim().split(/\s+/).slice(0, 2).join(" ");
  writeFileSync(join(sshDir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`, { mode: 0o600 });
  writeFileSync(join(sshDir, "sshd_config"), sshdConfig(sshDir, port));
  const wanted = images ?? (existsSync(join(TEST_IMAGES_DIR, TEST_IMAGE_NAME)) ? [TEST_IMAGE_NAME] : []);
  for (const i of wanted) addImage(i, imagesDir);
  return { dir, imagesDir, disksDir, port, keyPath: join(sshDir, "client_ed25519"), knownHostsPath: join(sshDir, "known_hosts"), hostKey };
}
