// `pnpm start`: every service in the foreground, output prefixed by service; Ctrl-C stops all.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { ensureDatabase } from "@svc/db";
import { createLinePrettifier, wantsPrettyLogs } from "@svc/logger";
import { readyBanner, waitForStack } from "./stack-ready";

const root = path.resolve(__dirname, "../..");
const ORDER = ["scheduler", "worker", "orchestrator", "web-ui", "assistant-api"];

async function main(): Promise<void> {
  const startedAt = Date.now();
  const config = loadConfig(process.env);
  // Children write JSON (their stdout is a pipe); a person at a terminal reads them pretty.
  const pretty = wantsPrettyLogs(config.logFormat) ? createLinePrettifier() : (l: string) => l;
  // Created once here so that services starting in parallel do not race to create it.
  await ensureDatabase(config.databaseUrl);
  const services = readdirSync(path.join(root, "services"))
    .filter((s) => existsSync(path.join(root, "services", s, "src", "main.ts")))
    .filter((s) => !s.startsWith("mcp-") || process.env.SVC_START_MCP === "true")
    .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
  // tsx registered in-process (its CLI would fork a second process per service).
  const tsx = require.resolve("tsx/cjs");
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const width = Math.max(...services.map((s) => s.length));
  for (const s of services) {
    const env = { ...process.env, SVC_LOG_FORMAT: "json" };
    const child = spawn(process.execPath, ["--require", tsx, path.join(root, "services", s, "src", "main.ts")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    const prefix = `${s.padEnd(width)} | `;
    for (const stream of [child.stdout, child.stderr]) {
      let buf = "";
      stream.on("data", (d) => {
        buf += String(d);
        const lines = buf.split("\n");
        buf = lines.pop() ?? "";
        for (const l of lines) process.stdout.write(prefix + pretty(l) + "\n");
      });
    }
    child.on("exit", (code, sig) => {
      children.delete(s);
      process.stdout.write(`${prefix}exited (${code ?? sig})\n`);
      if (!stopping) stop(1);
    });
    children.set(s, child);
  }
  process.stdout.write(`started: ${services.join(", ")} (Ctrl-C stops all)\n`);
  void waitForStack(config, startedAt).then((seconds) => {
    if (stopping) return;
    if (seconds === null) process.stdout.write("the stack did not report healthy within 2 minutes: read the lines above\n");
    else process.stdout.write(readyBanner(config, seconds));
  });
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const c of children.values()) c.kill("SIGTERM");
    const t = setTimeout(() => {
      for (const c of children.values()) c.kill("SIGKILL");
    }, 10000);
    const wait = setInterval(() => {
      if (children.size === 0) {
        clearInterval(wait);
        clearTimeout(t);
        process.exit(code);
      }
    }, 100);
  };
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));
}

main().catch((e) => {
  process.stderr.write(`start failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
