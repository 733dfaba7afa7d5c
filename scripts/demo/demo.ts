// `pnpm demo`: says "create a vm called demo01" to the assistant over its HTTP API and follows the
// flow live until the VM is running and configured; `--delete` removes it the same way.
import { readSse } from "./sse";
import { Screen, type DemoState } from "./render";
import { fetchTimings, formatTimings } from "./timings";

const HELP = `Usage: pnpm demo [--name NAME] [--delete] [--timings] [--url URL] [--web-url URL]

Sends "create a vm called NAME" (default demo01) to the assistant (POST /orchestrator/intent,
auto_approve and auto_execute on) and shows the flow live: phases, each task's state, progress and
elapsed time, until the VM is running and configured. Then prints how to reach and remove it.
  --name NAME   the VM's name (lower-case letters, digits and '-', starting with a letter)
  --delete      send "delete the vm NAME" instead
  --timings     at the end, print where the time went: routing and planning, queueing, each task
                (boot to SSH; each Ansible task split into start-up, fact gathering and its plays),
                the hops between tasks and the report, from the run's task and log timestamps
  --url URL     the assistant (default http://127.0.0.1:$SVC_ASSISTANT_PORT, port 8080)
  --web-url URL the workflow UI, read for --timings (default http://127.0.0.1:$SVC_WEB_UI_PORT, port 8888)
Credentials, when the API needs them: SVC_API_TOKEN (bearer), else SVC_ADMIN_USER/SVC_ADMIN_PASSWORD.`;

interface Args {
  name: string;
  del: boolean;
  timings: boolean;
  url: string;
  webUrl: string;
}

function parseArgs(argv: string[]): Args | string {
  const a: Args = {
    name: "demo01",
    del: false,
    timings: false,
    url: `http://127.0.0.1:${process.env.SVC_ASSISTANT_PORT || "8080"}`,
    webUrl: `http://127.0.0.1:${process.env.SVC_WEB_UI_PORT || "8888"}`,
  };
  const valued: Record<string, "name" | "url" | "webUrl"> = { "--name": "name", "--url": "url", "--web-url": "webUrl" };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i]!;
    if (k === "-h" || k === "--help") return HELP;
    if (k === "--delete") a.del = true;
    else if (k === "--timings") a.timings = true;
    else if (valued[k] && argv[i + 1] !== undefined) a[valued[k]] = argv[++i]!;
    else return `unknown or incomplete option: ${k.slice(0, 40)}\n\n${HELP}`;
  }
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(a.name)) return `--name: '${a.name.slice(0, 70)}' is not a VM name (lower-case letters, digits and '-', starting with a letter, at most 63)`;
  return a;
}

function authHeaders(): Record<string, string> {
  const env = process.env;
  if (env.SVC_API_TOKEN) return { Authorization: `Bearer ${env.SVC_API_TOKEN}` };
  if (env.SVC_ADMIN_USER && env.SVC_ADMIN_PASSWORD) return { Authorization: `Basic ${Buffer.from(`${env.SVC_ADMIN_USER}:${env.SVC_ADMIN_PASSWORD}`).toString("base64")}` };
  return {};
}

/** A JSON value as text: strings as they are, other values as JSON, a missing one as the fallback. */
const text = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : v === undefined || v === null ? fallback : JSON.stringify(v));

async function call(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, headers: { "Content-Type": "application/json", ...authHeaders(), ...(init.headers as Record<string, string>) } });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${res.status} ${text(body.title, res.statusText)}: ${text(body.detail)}`);
  return body;
}

async function totalTasks(base: string, dagId: string, runId: string): Promise<number> {
  const o = await call(`${base}/orchestrator/observe?dag_id=${encodeURIComponent(dagId)}&run_id=${encodeURIComponent(runId)}`, { method: "POST" });
  return Object.values((o.task_counts ?? {}) as Record<string, number>).reduce((x, y) => x + y, 0);
}

/** Follows the flow's event stream; resolves with the run's end state (null when no run). */
async function follow(base: string, s: DemoState, screen: Screen): Promise<string | null> {
  const res = await fetch(`${base}/orchestrator/flows/${s.flowId}/events`, { headers: { Accept: "text/event-stream", ...authHeaders() } });
  if (!res.ok) throw new Error(`cannot follow the flow: ${res.status} ${res.statusText}`);
  const tick = setInterval(() => screen.show(s), 1000);
  try {
    for await (const ev of readSse(res)) {
      const d = JSON.parse(ev.data) as Record<string, unknown>;
      if (ev.event === "phase") {
        s.phases.push(String(d.phase));
        screen.show(s, `phase ${String(d.phase)} done`);
      } else if (ev.event === "flow") {
        s.flowStatus = String(d.status);
        s.dagId = (d.dag_id as string | null) ?? s.dagId;
        s.runId = (d.run_id as string | null) ?? s.runId;
        if (s.dagId && s.runId && s.totalTasks === 0) s.totalTasks = await totalTasks(base, s.dagId, s.runId).catch(() => 0);
        screen.show(s, `flow ${s.flowStatus}${d.summary ? `: ${text(d.summary)}` : ""}`);
        if (s.flowStatus === "awaiting_approval") screen.say(`  waiting for approval: POST ${base}/orchestrator/flows/${s.flowId}/approve (an operator's credentials)`);
      } else if (ev.event === "task") {
        s.tasks.set(String(d.task_id), text(d.state, "none"));
        if (s.totalTasks === 0 && s.dagId && s.runId) s.totalTasks = await totalTasks(base, s.dagId, s.runId).catch(() => 0);
        screen.show(s, `task ${String(d.task_id)}: ${String(d.state)}${Number(d.try_number) > 1 ? ` (try ${String(d.try_number)})` : ""}`);
      } else if (ev.event === "run") {
        s.flowStatus = String(d.flow_status);
        screen.show(s, `run ${text(d.state, "not created")}`);
        return (d.state as string | null) ?? null;
      }
    }
    return null;
  } finally {
    clearInterval(tick);
  }
}

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  if (typeof parsed === "string") {
    process.stdout.write(`${parsed}\n`);
    return parsed === HELP ? 0 : 2;
  }
  const { name, del, url, timings, webUrl } = parsed;
  const base = url.replace(/\/+$/, "");
  const intent = del ? `delete the vm ${name}` : `create a vm called ${name}`;
  const screen = new Screen(process.stdout);
  const startedAt = Date.now();
  screen.say(`sending to ${base}: "${intent}"`);
  const flow = await call(`${base}/orchestrator/intent`, { method: "POST", body: JSON.stringify({ intent, auto_approve: true, auto_execute: true }) });
  const answeredAt = Date.now();
  const s: DemoState = {
    intent,
    flowId: String(flow.flow_id),
    flowStatus: String(flow.status),
    dagId: (flow.dag_id as string) ?? null,
    runId: (flow.run_id as string) ?? null,
    phases: [],
    tasks: new Map(),
    totalTasks: 0,
    startedAt,
  };
  if (flow.status === "needs_input" || flow.status === "rejected") {
    screen.say(`the assistant answered ${String(flow.status)}: ${text(flow.question ?? flow.summary ?? flow.error_message)}`);
    return 1;
  }
  const end = await follow(base, s, screen);
  const seenEndAt = Date.now();
  const took = Math.round((seenEndAt - startedAt) / 1000);
  if (timings && s.dagId && s.runId) {
    const web = webUrl.replace(/\/+$/, "");
    const get = async (p: string, asText = false) => {
      const res = await fetch(`${web}${p}`, { headers: { Accept: asText ? "text/plain" : "application/json", ...authHeaders() } });
      if (!res.ok) throw new Error(`GET ${web}${p}: ${res.status} ${res.statusText}`);
      return asText ? res.text() : res.json();
    };
    const phases = await fetchTimings(get, s.dagId, s.runId, { sentAt: startedAt, answeredAt, seenEndAt }).catch((e: unknown) => `cannot read the run's timings: ${String(e)}`);
    screen.say(typeof phases === "string" ? phases : `\n${formatTimings(phases, (seenEndAt - startedAt) / 1000)}`);
  }
  if (end !== "success") {
    screen.say(`\nthe run ended ${end ?? "without a run"} after ${took} s (flow ${s.flowStatus}); details: GET ${base}/orchestrator/flows/${s.flowId}`);
    if (s.dagId) screen.say(`grid and logs: http://127.0.0.1:${process.env.SVC_WEB_UI_PORT || "8888"}/dags/${s.dagId}/grid`);
    return 1;
  }
  if (del) {
    screen.say(`\nVM ${name} is deleted (${took} s).`);
    return 0;
  }
  screen.say(
    [
      "",
      `VM ${name} is running and configured, ${took} s after the sentence.`,
      `  reach it:        svc-vm ssh vm ${name} -- hostname`,
      `  what made it:    svc-vm ssh vm ${name} -- cat /etc/svc/managed.json`,
      `  remove it:       pnpm demo --delete${name === "demo01" ? "" : ` --name ${name}`}   (says "delete the vm ${name}")`,
      `  grid and logs:   http://127.0.0.1:${process.env.SVC_WEB_UI_PORT || "8888"}/dags/${s.dagId ?? "vm_deployment"}/grid`,
    ].join("\n"),
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(
      /ECONNREFUSED|fetch failed/.test(msg) ? "demo: the assistant does not answer: start the stack first (bash scripts/development/run-dev.sh)\n" : `demo: ${msg}\n`,
    );
    process.exit(1);
  },
);
