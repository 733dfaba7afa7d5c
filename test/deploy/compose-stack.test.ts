// The compose deployment for real: deploy-with-workflows.sh brings the default profile up on the
// Docker engine (offline base images when the official ones cannot be pulled), then everything is
// checked through nginx on loopback ports: health, authentication, the catalogue, an intent, SSE,
// DAG runs in worker containers (one over SSH to the host), scaling, a killed worker, the MCP
// profile and an idempotent redeploy that keeps the data.
import { existsSync, statSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { waitFor } from "@svc/testing";
import { call, containersOf, must, prepareStack, repo, type Run, type Stack } from "./compose-harness";

const FANOUT = 6;
const fanoutTasks = Array.from({ length: FANOUT }, (_, i) => `  - {task_id: part_${i}, operator: shell, args: {argv: [sh, -c, "sleep 3; cat /etc/hostname"]}}`).join("\n");
const DAGS = {
  "compose_check.yaml": `dag_id: compose_check
description: A task in a worker container and a command on the host over SSH
tasks:
  - {task_id: in_worker, operator: shell, args: {argv: [cat, /etc/hostname]}}
  - {task_id: on_host, operator: ssh, args: {argv: [hostname]}, depends_on: [in_worker]}
`,
  "compose_fanout.yaml": `dag_id: compose_fanout
description: Parallel tasks, spread over the workers
tasks:
${fanoutTasks}
`,
  "compose_long.yaml": `dag_id: compose_long
description: Tasks long enough to kill a worker under them
tasks:
  - {task_id: long_a, operator: sleep, args: {seconds: 25}, retries: 3, retry_delay: 1s}
  - {task_id: long_b, operator: sleep, args: {seconds: 25}, retries: 3, retry_delay: 1s}
  - {task_id: after, operator: noop, depends_on: [long_a, long_b]}
`,
};

let stack: Stack;
let first: Run;
let auth: string;
const seenRuns: string[] = [];

const api = (p: string, o: { method?: string; body?: unknown; anonymous?: boolean } = {}) => call(stack.webUiPort, `/api/v1${p}`, { ...o, auth: o.anonymous ? undefined : auth });

async function triggerAndFinish(dagId: string, whileRunning?: () => Promise<void>): Promise<{ runId: string; tis: any[] }> {
  const unpause = await api(`/dags/${dagId}?update_mask=is_paused`, { method: "PATCH", body: { is_paused: false } });
  expect(unpause.status).toBe(200);
  const runId = `compose-${dagId}-${Date.now()}`;
  const trig = await api(`/dags/${dagId}/dagRuns`, { method: "POST", body: { dag_run_id: runId } });
  expect(trig.status).toBe(200);
  seenRuns.push(`${dagId}/${runId}`);
  if (whileRunning) await whileRunning();
  const state = await waitFor(
    async () => {
      const r = await api(`/dags/${dagId}/dagRuns/${runId}`);
      return r.json.state === "success" || r.json.state === "failed" ? (r.json.state as string) : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 1000, what: `run ${runId} to finish` },
  );
  const tis = (await api(`/dags/${dagId}/dagRuns/${runId}/taskInstances`)).json.task_instances as any[];
  if (state !== "success") throw new Error(`run ${runId} ended ${state}: ${JSON.stringify(tis.map((t) => [t.task_id, t.state, t.hostname]))}`);
  return { runId, tis };
}

beforeAll(async () => {
  await must(["docker", "info"]).catch((e) => {
    throw new Error(`the Docker engine must run (scripts/test.sh starts dockerd): ${String(e).slice(0, 300)}`);
  });
  stack = await prepareStack(DAGS);
  // A fresh machine may build the offline base images and the application image here.
  first = await stack.deploy("deploy-with-workflows.sh", 1_100_000);
  if (first.code !== 0) throw new Error(`deploy-with-workflows.sh failed:\n${first.out.slice(-6000)}`);
  auth = `Basic ${Buffer.from(`admin:${stack.setting("SVC_ADMIN_PASSWORD")}`).toString("base64")}`;
}, 1_200_000);

afterAll(async () => {
  await stack?.teardown();
}, 120_000);

describe("compose deployment (deploy-with-workflows.sh --yes, offline images)", () => {
  it("deploys with generated credentials kept in a 0600 env file it names, never printing them", () => {
    expect(first.out).toMatch(/==> deployed/);
    expect(first.out).toMatch(new RegExp(`AI assistant: +http://\\S+:${stack.assistantPort}`));
    expect(first.out).toMatch(new RegExp(`Workflow UI: +http://\\S+:${stack.webUiPort}`));
    expect(first.out).toContain(`the password and the API token are in ${stack.envFile}`);
    expect(statSync(stack.envFile).mode & 0o777).toBe(0o600);
    for (const k of ["SVC_ADMIN_PASSWORD", "SVC_API_TOKEN", "SVC_POSTGRES_PASSWORD", "SVC_REDIS_PASSWORD"]) {
      expect(first.out).not.toContain(stack.setting(k));
    }
    expect(first.out).toMatch(/base images: official|offline images built from this machine's Debian mirror/);
  });

  it("publishes only nginx, on the loopback ports asked for (never Postgres or Redis)", async () => {
    const out = await must(["docker", "ps", "--filter", `label=com.docker.compose.project=${stack.project}`, "--format", '{{ .Label "com.docker.compose.service" }} {{ .Ports }}']);
    const published = out
      .split("\n")
      .filter((l) => l.includes("->"))
      .map((l) => l.trim());
    expect(published).toHaveLength(1);
    expect(published[0]).toMatch(/^nginx /);
    expect(published[0]).toContain(`127.0.0.1:${stack.assistantPort}->8080/tcp`);
    expect(published[0]).toContain(`127.0.0.1:${stack.webUiPort}->8888/tcp`);
  });

  it("runs one application image under 600 MB with tini as PID 1 and a non-root user", async () => {
    const image = stack.env.SVC_IMAGE!;
    const [size, user, entrypoint] = (await must(["docker", "image", "inspect", "-f", "{{ .Size }}|{{ .Config.User }}|{{ index .Config.Entrypoint 0 }}", image])).trim().split("|");
    expect(Number(size)).toBeLessThan(600_000_000);
    expect([user, entrypoint]).toEqual(["node", "/usr/bin/tini"]);
    const [webUi] = await containersOf(stack, "web-ui");
    const inside = await must(["docker", "exec", webUi!, "sh", "-c", "tr '\\0' ' ' </proc/1/cmdline; echo; id -u"]);
    const [pid1, uid] = inside.trim().split("\n");
    expect(pid1).toMatch(/^\/usr\/bin\/tini /);
    expect(uid).toBe("1000");
  });

  it("answers health through nginx on both published ports", async () => {
    const a = await call(stack.assistantPort, "/health");
    expect(a.status).toBe(200);
    expect(a.headers.get("server")).toMatch(/^nginx/);
    const w = await call(stack.webUiPort, "/api/v1/health");
    expect(w.status).toBe(200);
    expect(w.json.metadatabase.status).toBe("healthy");
    expect(w.json.scheduler.status).toBe("healthy");
  });

  it("refuses the API and the assistant without credentials (401)", async () => {
    expect((await api("/dags", { anonymous: true })).status).toBe(401);
    expect((await call(stack.assistantPort, "/orchestrator/dags")).status).toBe(401);
    expect((await call(stack.assistantPort, "/orchestrator/dags", { auth: "Basic YWRtaW46d3Jvbmc=" })).status).toBe(401);
  });

  it("lists the catalogue and plans an intent with credentials", async () => {
    const cat = await call(stack.assistantPort, "/orchestrator/dags", { auth });
    expect(cat.status).toBe(200);
    const ids = (cat.json.dags as { dag_id: string }[]).map((d) => d.dag_id);
    expect(ids).toEqual(expect.arrayContaining(["infrastructure_health_check", "vm_deployment", "compose_check"]));
    const bearer = await api("/dags", {});
    expect(bearer.json.total_entries).toBeGreaterThanOrEqual(ids.length - 1);
    const plan = await call(stack.assistantPort, "/orchestrator/intent", {
      auth: `Bearer ${stack.setting("SVC_API_TOKEN")}`,
      method: "POST",
      body: { intent: "check the health of the infrastructure", auto_execute: false },
    });
    expect([200, 202]).toContain(plan.status);
    expect(plan.json.dag_id).toBe("infrastructure_health_check");
    expect(plan.json.status).toBe("awaiting_approval");
  });

  it("streams a flow's events through nginx unbuffered (each event arrives while the stream stays open)", async () => {
    const plan = await call(stack.assistantPort, "/orchestrator/intent", { auth, method: "POST", body: { intent: "check the health of the infrastructure", auto_execute: false } });
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${stack.assistantPort}/orchestrator/flows/${plan.json.flow_id}/events`, { headers: { authorization: auth }, signal: ac.signal });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("content-length")).toBeNull();
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("event: phase")) {
      const { value, done } = await reader.read();
      expect(done).toBe(false); // the flow waits for approval: the stream is still open
      text += Buffer.from(value).toString("utf8");
    }
    ac.abort();
    expect(text).toContain(`"flow_id":"${plan.json.flow_id}"`);
  });

  it("runs a DAG in a worker container, with a task on the host over SSH, to success", async () => {
    const workers = await containersOf(stack, "worker");
    const { tis } = await triggerAndFinish("compose_check");
    const byId = Object.fromEntries(tis.map((t) => [t.task_id, t]));
    expect(workers.map((w) => w.slice(0, 12))).toContain(byId.in_worker.hostname);
    const log = await api(`/dags/compose_check/dagRuns/${byId.on_host.dag_run_id}/taskInstances/on_host/logs/1`);
    expect(String(log.json.content ?? log.json)).toContain(hostname());
  }, 300_000);

  it("spreads the tasks of one run over three workers (--scale worker=3)", async () => {
    await stack.compose("up", "-d", "--no-recreate", "--scale", "worker=3", "worker");
    const workers = await waitFor(
      async () => {
        const ids = await containersOf(stack, "worker");
        return ids.length === 3 ? ids : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000, what: "three workers" },
    );
    // Every worker beats before the run starts, so each can take tasks.
    await waitFor(
      async () => {
        const out = await must(["docker", "inspect", "-f", "{{ .State.Health.Status }}", ...workers]);
        return out
          .trim()
          .split("\n")
          .every((s) => s === "healthy");
      },
      { timeoutMs: 180_000, intervalMs: 2000, what: "three healthy workers" },
    );
    const { tis } = await triggerAndFinish("compose_fanout");
    const hosts = new Set(tis.map((t) => t.hostname as string));
    expect(tis).toHaveLength(FANOUT);
    expect(hosts.size).toBeGreaterThan(1);
    for (const h of hosts) expect(workers.map((w) => w.slice(0, 12))).toContain(h);
  }, 400_000);

  it("finishes a run when the worker running its tasks is killed (docker kill)", async () => {
    let killed = "";
    const { tis } = await triggerAndFinish("compose_long", async () => {
      const runId = seenRuns[seenRuns.length - 1]!.split("/")[1]!;
      const victim = await waitFor(
        async () => {
          const r = await api(`/dags/compose_long/dagRuns/${runId}/taskInstances`);
          return (r.json.task_instances as any[]).find((t) => t.state === "running" && t.hostname)?.hostname as string | undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500, what: "a running task" },
      );
      killed = victim;
      await must(["docker", "kill", victim]);
    });
    expect(killed).not.toBe("");
    expect(tis.map((t) => t.state)).toEqual(["success", "success", "success"]);
  }, 400_000);

  it("stops workers gracefully (SIGTERM through tini, exit 0) without losing the run they were working on", async () => {
    let stopped: string[] = [];
    const { tis } = await triggerAndFinish("compose_long", async () => {
      const runId = seenRuns[seenRuns.length - 1]!.split("/")[1]!;
      await waitFor(
        async () => {
          const r = await api(`/dags/compose_long/dagRuns/${runId}/taskInstances`);
          return (r.json.task_instances as any[]).some((t) => t.state === "running");
        },
        { timeoutMs: 60_000, intervalMs: 500, what: "a running task" },
      );
      stopped = await containersOf(stack, "worker");
      await stack.compose("stop", "-t", "60", "worker");
      const codes = await must(["docker", "inspect", "-f", "{{ .State.ExitCode }}", ...stopped]);
      expect(codes.trim().split("\n")).toEqual(stopped.map(() => "0"));
      await stack.compose("up", "-d", "--no-recreate", "--scale", "worker=3", "worker");
    });
    expect(stopped.length).toBeGreaterThan(0);
    expect(tis.map((t) => t.state)).toEqual(["success", "success", "success"]);
  }, 400_000);

  it("answers MCP initialize on the mcp profile with its token, and 401 without", async () => {
    const servers = ["mcp-workflow", "mcp-assistant"].filter(
      (s) => existsSync(path.join(repo, "services", s, "bin", `svc-${s}`)) || existsSync(path.join(repo, "services", s, "src", "main.ts")),
    );
    expect(servers.length).toBeGreaterThan(0);
    const r = await stack.deploy("deploy-fastmcp-production.sh");
    if (r.code !== 0) throw new Error(`deploy-fastmcp-production.sh failed:\n${r.out.slice(-4000)}`);
    expect(r.out).not.toContain(stack.setting("SVC_MCP_TOKEN"));
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "compose-test", version: "1" } } };
    const ports: Record<string, number> = { "mcp-workflow": stack.mcpWorkflowPort, "mcp-assistant": stack.mcpAssistantPort };
    for (const s of servers) {
      const post = (token?: string) =>
        fetch(`http://127.0.0.1:${ports[s]}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(init),
        });
      expect((await post()).status).toBe(401);
      const ok = await post(stack.setting("SVC_MCP_TOKEN"));
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('"serverInfo"');
    }
  }, 600_000);

  it("plans each intent exactly once with two orchestrators (--scale orchestrator=2)", async () => {
    await stack.compose("up", "-d", "--no-recreate", "--scale", "orchestrator=2", "orchestrator");
    const orchestrators = await waitFor(
      async () => {
        const ids = await containersOf(stack, "orchestrator");
        if (ids.length !== 2) return undefined;
        const out = await must(["docker", "inspect", "-f", "{{ .State.Health.Status }}", ...ids]);
        return out
          .trim()
          .split("\n")
          .every((h) => h === "healthy")
          ? ids
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 2000, what: "two healthy orchestrators" },
    );
    const plans = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(stack.assistantPort, "/orchestrator/intent", { auth, method: "POST", body: { intent: "check the health of the infrastructure", auto_execute: false } }),
      ),
    );
    const flowIds = plans.map((p) => p.json.flow_id as string);
    expect(plans.map((p) => p.json.status)).toEqual(flowIds.map(() => "awaiting_approval"));
    const handled = new Map<string, number>();
    for (const id of orchestrators) {
      for (const line of (await must(["docker", "logs", id])).split("\n")) {
        let rec: { msg?: string; flowId?: string; action?: string } = {};
        try {
          rec = JSON.parse(line);
        } catch {
          continue; // not a log record
        }
        if (rec.msg === "intent job" && rec.action === "plan" && rec.flowId) handled.set(rec.flowId, (handled.get(rec.flowId) ?? 0) + 1);
      }
    }
    expect(flowIds.map((f) => handled.get(f))).toEqual(flowIds.map(() => 1));
  }, 300_000);

  it("redeploys idempotently: same credentials, earlier runs still listed", async () => {
    const before = ["SVC_ADMIN_PASSWORD", "SVC_API_TOKEN", "SVC_POSTGRES_PASSWORD"].map((k) => stack.setting(k));
    const again = await stack.deploy();
    if (again.code !== 0) throw new Error(`second deploy failed:\n${again.out.slice(-6000)}`);
    expect(again.out).toMatch(/redeploy: /);
    expect(again.out).toMatch(/SVC_ADMIN_PASSWORD: kept/);
    expect(["SVC_ADMIN_PASSWORD", "SVC_API_TOKEN", "SVC_POSTGRES_PASSWORD"].map((k) => stack.setting(k))).toEqual(before);
    const runs = await api("/dags/~/dagRuns?limit=100");
    const listed = (runs.json.dag_runs as any[]).map((r) => `${r.dag_id}/${r.dag_run_id}`);
    expect(listed).toEqual(expect.arrayContaining(seenRuns));
    expect((await call(stack.assistantPort, "/health")).status).toBe(200);
  }, 600_000);
});
