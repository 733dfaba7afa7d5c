import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HostExecutor } from "@svc/host";
import { lastError } from "./virsh";

/** cloud-init NoCloud user-data: the injected keys for root and the image user, and the hostname. */
export function cloudInitUserData(name: string, sshUser: string, keys: string[]): string {
  const keyLines = keys.map((k) => `      - ${JSON.stringify(k)}`).join("\n");
  const users = [sshUser === "root" ? null : sshUser, "root"].filter(Boolean) as string[];
  return [
    "#cloud-config",
    `hostname: ${name}`,
    "disable_root: false",
    "ssh_pwauth: false",
    "users:",
    ...users.map((u) =>
      u === "root"
        ? `  - name: root\n    ssh_authorized_keys:\n${keyLines}`
        : `  - name: ${u}\n    sudo: "ALL=(ALL) NOPASSWD:ALL"\n    shell: /bin/bash\n    ssh_authorized_keys:\n${keyLines}`,
    ),
    "",
  ].join("\n");
}

/** Write a NoCloud seed ISO (volume label `cidata`) at `out` with genisoimage. */
export async function writeSeedIso(ex: HostExecutor, out: string, name: string, sshUser: string, keys: string[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "svc-seed-"));
  try {
    await writeFile(join(dir, "user-data"), cloudInitUserData(name, sshUser, keys));
    await writeFile(join(dir, "meta-data"), `instance-id: ${name}-${Date.now().toString(36)}\nlocal-hostname: ${name}\n`);
    const r = await ex.run(["genisoimage", "-quiet", "-output", out, "-volid", "cidata", "-joliet", "-rock", join(dir, "user-data"), join(dir, "meta-data")]);
    if (r.code !== 0) throw new Error(`genisoimage failed: ${lastError(r.stderr)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
