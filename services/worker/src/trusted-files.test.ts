import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const TSX = path.resolve(__dirname, "../../../node_modules/.bin/tsx");
const MAIN = path.resolve(__dirname, "main.ts");

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), "svc-worker-files-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the worker refuses to start with an SSH key its group and others can read, naming the file and the chmod, before it connects to anything", async () => {
  const key = path.join(dir, "id_key");
  writeFileSync(key, "not really a key\n");
  chmodSync(key, 0o644);
  // Nothing listens on port 1: the worker must stop on the key before trying either.
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    DATABASE_URL: "postgres://postgres@127.0.0.1:1/svc",
    REDIS_URL: "redis://127.0.0.1:1",
    SVC_LOG_LEVEL: "silent",
    SVC_SSH_KEY_PATH: key,
    SVC_INVENTORY_DIR: path.join(dir, "inventory"),
  };
  const child = spawn(TSX, [MAIN], { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  expect({ code, stderr }).toEqual({
    code: 1,
    stderr: `worker failed to start: invalid configuration:\n  SVC_SSH_KEY_PATH: ${key} is open to others than its owner (mode 0644); it must be readable by its owner only: chmod 600 ${key}\n`,
  });
}, 40_000);
