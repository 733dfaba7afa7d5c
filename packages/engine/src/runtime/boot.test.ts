import { spawn } from "node:child_process";
import { join } from "node:path";

const BOOT_TS = join(__dirname, "boot.ts");

// A separate process: the handler exits it. The child installs the service handlers and then
// leaves a rejection unhandled, as a bug would.
const CHILD = `
const { createLogger } = require("@svc/logger");
const { onShutdown } = require(${JSON.stringify(BOOT_TS)});
onShutdown(createLogger("boot-test", "info"), async () => undefined, 1000);
Promise.reject(new Error("lost outcome"));
setTimeout(() => console.log("still running"), 2000);
`;

test("a service whose promise rejection nobody handles logs it at fatal level with the stack, then exits 1", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "-e", CHILD], {
    cwd: join(__dirname, ".."),
    env: { ...process.env, SVC_LOG_FORMAT: "json" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
  const fatal = out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: number; msg: string; err?: string })
    .find((l) => l.level === 60);
  expect(code).toBe(1);
  expect(out).not.toContain("still running");
  expect(fatal).toMatchObject({ msg: "unhandled promise rejection (a bug): exiting", err: expect.stringContaining("Error: lost outcome") });
}, 30_000);
