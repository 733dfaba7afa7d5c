// The compose suite's harness: a private sshd the containers reach as "the host", the deployment
// script run against a sandbox (own env file, keys, project name, loopback ports) and helpers to
// talk to the stack through nginx. Everything it creates is removed by teardown().
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, testSshdConfig, waitFor } from "@svc/testing";

export const repo = path.resolve(__dirname, "../..");

export interface Run {
  code: number;
  out: string;
}

/** Run a command (argv, never a shell string) and collect its output. */
export function run(argv: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 900_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(argv[0]!, argv.slice(1), { cwd: repo, env, timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** Like run, failing with the output when the command fails. */
export async function must(argv: string[], env?: NodeJS.ProcessEnv, timeoutMs?: number): Promise<string> {
  const r = await run(argv, env, timeoutMs);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r.out;
}

/** The address containers reach this host at (host-gateway: the default bridge docker0). */
function bridgeGateway(): string {
  const r = spawnSync("ip", ["-4", "-o", "addr", "show", "docker0"], { encoding: "utf8" });
  const ip = /inet (\d+\.\d+\.\d+\.\d+)\//.exec(r.stdout)?.[1] ?? "";
  if (r.status !== 0 || !/^\d+\.\d+\.\d+\.\d+$/.test(ip)) throw new Error(`no Docker bridge gateway: ${r.stderr}`);
  return ip;
}

/** sshd on a spare port, on 127.0.0.1 and the bridge gateway, with its own authorized_keys. */
async function startHostSshd(dir: string): Promise<{ port: number; authorizedKeys: string; child: ChildProcess }> {
  const port = await freePort();
  const hostKey = path.join(dir, "sshd_host_ed25519");
  const authorizedKeys = path.join(dir, "authorized_keys");
  spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  writeFileSync(authorizedKeys, "", { mode: 0o644 });
  const conf = path.join(dir, "sshd_config");
  writeFileSync(conf, testSshdConfig({ port, listen: ["127.0.0.1", bridgeGateway()], hostKey, pidFile: `${dir}/sshd.pid`, authorizedKeys, user: "root" }));
  spawnSync("mkdir", ["-p", "/run/sshd"]);
  const child = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", conf], { stdio: "ignore" });
  await waitFor(() => spawnSync("ssh-keyscan", ["-p", String(port), "-T", "2", "127.0.0.1"]).status === 0, { timeoutMs: 15_000 });
  return { port, authorizedKeys, child };
}

export interface Stack {
  dir: string;
  project: string;
  envFile: string;
  env: NodeJS.ProcessEnv;
  assistantPort: number;
  webUiPort: number;
  mcpWorkflowPort: number;
  mcpAssistantPort: number;
  /** The deployment's own settings (read from its env file). */
  setting(key: string): string;
  /** Run a deploy script with --yes against the sandbox (killed after timeoutMs). */
  deploy(script?: string, timeoutMs?: number): Promise<Run>;
  compose(...args: string[]): Promise<string>;
  teardown(): Promise<void>;
}

/** Prepare the sandbox (nothing is deployed yet). extraDags: file name -> YAML. */
export async function prepareStack(extraDags: Record<string, string>): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-compose-"));
  chmodSync(dir, 0o755);
  const project = `svcct${process.pid}`;
  const sshd = await startHostSshd(dir);
  const dags = path.join(dir, "dags");
  cpSync(path.join(repo, "dags"), dags, { recursive: true });
  for (const [name, yaml] of Object.entries(extraDags)) writeFileSync(path.join(dags, name), yaml);
  const [assistantPort, webUiPort, mcpWorkflowPort, mcpAssistantPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const envFile = path.join(dir, "etc", "svc.env");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: "C.UTF-8",
    CI: "1",
    SVC_COMPOSE_PROJECT: project,
    SVC_CONFIG_DIR: path.join(dir, "etc"),
    // SVC_COMPOSE_TEST_IMAGE: a prebuilt application image to deploy instead of building one.
    SVC_IMAGE: process.env.SVC_COMPOSE_TEST_IMAGE ?? "svc:compose-test",
    BUILD_AI_ASSISTANT_FROM_SOURCE: process.env.SVC_COMPOSE_TEST_IMAGE ? "false" : "true",
    SVC_BIND_ADDRESS: "127.0.0.1",
    SVC_MCP_BIND_ADDRESS: "127.0.0.1",
    SVC_ASSISTANT_PUBLISHED_PORT: String(assistantPort),
    SVC_WEB_UI_PUBLISHED_PORT: String(webUiPort),
    SVC_MCP_WORKFLOW_PORT: String(mcpWorkflowPort),
    SVC_MCP_ASSISTANT_PORT: String(mcpAssistantPort),
    SVC_DAGS_HOST_DIR: dags,
    SVC_WORKER_CONCURRENCY: "2",
    // The compose network's /24, one per test process: two stacks on this machine do not overlap.
    SVC_COMPOSE_NETWORK: `172.30.${100 + (process.pid % 150)}`,
    SVC_SSH_USER: "root",
    SVC_SSH_PORT: String(sshd.port),
    SVC_SSH_KEY_PATH: path.join(dir, "etc", "ssh", "id_ed25519"),
    SVC_SSH_KNOWN_HOSTS: path.join(dir, "etc", "ssh", "known_hosts"),
    SVC_SSH_AUTHORIZED_KEYS: sshd.authorizedKeys,
    SVC_INVENTORY_DIR: path.join(dir, "inventory"),
    SVC_HOSTS_KEYS_DIR: path.join(dir, "etc", "host-keys"),
    SVC_BIN_DIR: path.join(dir, "bin"),
  };
  const composeArgv = ["docker-compose", "-p", project, "--env-file", envFile, "-f", path.join(repo, "compose/compose.yaml")];
  const setting = (key: string): string => {
    const line = readFileSync(envFile, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${key}=`));
    if (!line) throw new Error(`${key} is not in the env file`);
    return line.slice(key.length + 1);
  };
  return {
    dir,
    project,
    envFile,
    env,
    assistantPort,
    webUiPort,
    mcpWorkflowPort,
    mcpAssistantPort,
    setting,
    deploy: (script = "deploy-with-workflows.sh", timeoutMs = 540_000) =>
      run([path.join(repo, script), "--yes", ...(script === "deploy-with-workflows.sh" ? ["--skip-preflight"] : []), "--env-file", envFile, "--timeout", "400"], env, timeoutMs),
    compose: (...args: string[]) => must([...composeArgv, "--profile", "mcp", ...args], env),
    async teardown() {
      // This project's containers, network and volumes only.
      await run([...composeArgv, "--profile", "mcp", "down", "-v", "--remove-orphans", "-t", "5"], env);
      sshd.child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An HTTP request to the stack (through nginx on 127.0.0.1). */
export async function call(port: number, urlPath: string, o: { auth?: string; method?: string; body?: unknown } = {}): Promise<{ status: number; json: any; headers: Headers }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (o.auth) headers.authorization = o.auth;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, { method: o.method ?? "GET", headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, json, headers: res.headers };
}

/** Containers of one service of the project: id -> hostname (the short id). */
export async function containersOf(stack: Stack, service: string): Promise<string[]> {
  const out = await must([
    "docker",
    "ps",
    "-q",
    "--no-trunc",
    "--filter",
    `label=com.docker.compose.project=${stack.project}`,
    "--filter",
    `label=com.docker.compose.service=${service}`,
  ]);
  return out.split("\n").filter(Boolean);
}
