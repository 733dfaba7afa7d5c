import net from "node:net";

/** Does an SSH server answer at host:port? True once it sends its `SSH-` banner. */
export function sshAnswers(host: string, port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    // qemu's user-mode forwarder accepts TCP before the guest listens, so a connect is
    // not enough: only the banner proves sshd is up.
    const s = net.connect({ host, port });
    let buf = "";
    const done = (ok: boolean) => {
      clearTimeout(t);
      s.destroy();
      resolve(ok);
    };
    const t = setTimeout(() => done(false), timeoutMs);
    s.on("data", (d) => {
      buf += d.toString("latin1");
      if (buf.startsWith("SSH-")) done(true);
      else if (buf.length >= 4) done(false);
    });
    s.on("error", () => done(false));
    s.on("close", () => done(false));
  });
}

/** Poll until SSH answers; resolves false at the deadline. Honours `signal`. */
export async function waitForSsh(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (await sshAnswers(host, port, Math.min(3000, Math.max(500, deadline - Date.now())))) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}
