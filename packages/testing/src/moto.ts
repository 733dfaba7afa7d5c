import { spawn, type ChildProcess } from "node:child_process";
import { freePort, waitFor } from "./ports";

/** A moto_server (AWS emulator) on a free 127.0.0.1 port, for EC2 and STS. */
export interface Moto {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Start moto_server; `auth` turns on its IAM authentication from the first request (INITIAL_NO_AUTH_ACTION_COUNT=0);
 * `amis` is a JSON file of the images it serves instead of its defaults (MOTO_AMIS_PATH), such as a
 * distribution's official account's, which moto does not carry.
 */
export async function startMoto(o: { auth?: boolean; amis?: string } = {}): Promise<Moto> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    ...(o.auth ? { INITIAL_NO_AUTH_ACTION_COUNT: "0" } : {}),
    ...(o.amis ? { MOTO_AMIS_PATH: o.amis } : {}),
  };
  const child: ChildProcess = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { env, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await fetch(`${endpoint}/moto-api/`).catch(() => undefined))?.ok === true, { timeoutMs: 30_000 });
  } catch (e) {
    child.kill("SIGKILL");
    throw new Error(`moto_server did not start: ${(e as Error).message}\n${log}`);
  }
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
