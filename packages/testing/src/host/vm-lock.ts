import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

const LOCK = "/tmp/svc-vm-tests.lock";

function holderAlive(): boolean {
  try {
    const pid = Number(readFileSync(`${LOCK}/pid`, "utf8"));
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Serialise test files that boot real VMs (jest runs files in parallel; 2 cores under TCG
 * cannot boot several guests in time). A lock left by a dead process is taken over.
 */
export async function acquireVmTestLock(timeoutMs = 1_800_000): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(`${LOCK}/pid`, String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      if (!holderAlive()) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${LOCK}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
