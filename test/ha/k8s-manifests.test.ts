import { readFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "@svc/config";
import { Deployment } from "kubernetes-models/apps/v1";
import { renderManifests, toYamlStream, validateManifests, type Manifest } from "../../deploy/k8s/manifests";

const values = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "../../deploy/k8s/values", `${name}.json`), "utf8"));
const byKind = (objs: Manifest[], kind: string) => objs.filter((o) => o.kind === kind).map((o) => o.toJSON() as Record<string, any>);
const SERVICES = ["scheduler", "worker", "orchestrator", "web-ui", "assistant-api"];

test.each(["default", "scaled"])("the %s values render objects that all validate against the Kubernetes API schemas", (name) => {
  const objs = renderManifests(values(name));
  expect(() => validateManifests(objs)).not.toThrow();
  const deployments = byKind(objs, "Deployment");
  for (const s of SERVICES) {
    const d = deployments.find((x) => x.metadata.name === `svc-${s}`);
    expect(d).toBeDefined();
    const c = d!.spec.template.spec.containers[0];
    expect(c.args[0]).toBe(s);
    // Every service is probed on its health check: HTTP health for the APIs, the heartbeat row for the rest.
    expect(c.livenessProbe).toBeDefined();
    if (s === "web-ui") expect(c.readinessProbe.httpGet).toEqual({ path: "/api/v1/health", port: 8888 });
    if (s === "assistant-api") expect(c.readinessProbe.httpGet).toEqual({ path: "/health", port: 8080 });
    if (s === "worker") expect(c.livenessProbe.exec.command).toEqual(["node", "/app/compose/healthcheck.cjs", "heartbeat", "worker"]);
  }
  expect(byKind(objs, "Job").map((j) => j.spec.template.spec.containers[0].args)).toEqual([["migrate"]]);
  expect(toYamlStream(objs).split("\n---\n").length).toBe(objs.length);
});

test("secrets are referenced per service as in compose, never written into the manifests; the SSH key reaches only the hosts' users", () => {
  const objs = renderManifests(values("scaled"));
  const text = toYamlStream(objs);
  expect(text).not.toMatch(/"kind": "Secret"/);
  const envOf = (s: string) => {
    const d = byKind(objs, "Deployment").find((x) => x.metadata.name === `svc-${s}`)!;
    const c = d.spec.template.spec.containers[0];
    return { secrets: new Set(c.env.filter((e: any) => e.valueFrom).map((e: any) => e.name)), mounts: (c.volumeMounts ?? []).map((m: any) => m.mountPath) };
  };
  expect(envOf("worker").secrets).toEqual(new Set(["DATABASE_URL", "REDIS_URL", "SVC_REDIS_SENTINEL_PASSWORD"]));
  expect(envOf("worker").mounts).toEqual(expect.arrayContaining(["/run/svc/ssh", "/run/svc/vault"]));
  expect(envOf("web-ui").secrets).toEqual(new Set(["DATABASE_URL", "REDIS_URL", "SVC_REDIS_SENTINEL_PASSWORD", "SVC_ADMIN_PASSWORD", "SVC_API_TOKEN"]));
  expect(envOf("web-ui").mounts).toEqual([]);
  expect(envOf("orchestrator").secrets).toEqual(new Set(["DATABASE_URL", "REDIS_URL", "SVC_REDIS_SENTINEL_PASSWORD", "MODEL_PROVIDER_API_KEY"]));
  // The tool servers get no admin secret: the assistant's has a token of its own, which the assistant API accepts.
  const base = ["DATABASE_URL", "REDIS_URL", "SVC_REDIS_SENTINEL_PASSWORD"];
  expect(envOf("mcp-assistant").secrets).toEqual(new Set([...base, "SVC_MCP_ASSISTANT_TOKEN"]));
  expect(envOf("mcp-workflow").secrets).toEqual(new Set(base));
  expect(envOf("assistant-api").secrets).toEqual(new Set([...base, "SVC_ADMIN_PASSWORD", "SVC_API_TOKEN", "MODEL_PROVIDER_API_KEY", "SVC_MCP_ASSISTANT_TOKEN"]));
});

test("the scaled values scale the workers (6 replicas, KEDA on the task queue's wait list through the sentinels) and the services read Redis through Sentinel", () => {
  const objs = renderManifests(values("scaled"));
  expect(byKind(objs, "Deployment").find((d) => d.metadata.name === "svc-worker")!.spec.replicas).toBe(6);
  const [scaled] = byKind(objs, "ScaledObject");
  expect(scaled!.spec.scaleTargetRef.name).toBe("svc-worker");
  expect(scaled!.spec.triggers[0]).toMatchObject({ type: "redis-sentinel", metadata: { sentinelMaster: "svcprimary", listName: "svc:tasks:wait" } });
  // The settings the pods get, with the REDIS_URL secret, give the Sentinel URL the queue package opens.
  const [cm] = byKind(objs, "ConfigMap");
  const config = loadConfig({ ...cm!.data, REDIS_URL: "redis://:pw@unused:6379" });
  expect(config.redisUrl).toBe("redis+sentinel://:pw@redis-sentinel-0.redis:26379,redis-sentinel-1.redis:26379,redis-sentinel-2.redis:26379/svcprimary");
});

test("a deliberately broken object fails validation, naming it; contradicting values are refused before rendering", () => {
  const objs = renderManifests(values("default"));
  const web = objs.find((o) => o.kind === "Deployment" && o.metadata?.name === "svc-web-ui") as Deployment;
  (web.spec!.template.spec!.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = "8888";
  expect(() => validateManifests(objs)).toThrow(/Deployment svc-web-ui: .*containerPort/);
  const noContainers = new Deployment({ metadata: { name: "broken" }, spec: { selector: {}, template: { spec: {} } } } as never);
  expect(() => validateManifests([noContainers])).toThrow(/Deployment broken/);
  expect(() => renderManifests({ ...(values("default") as object), redis: { sentinels: ["s:26379"] } })).toThrow(/sentinels and sentinelName go together/);
  expect(() => renderManifests({ ...(values("default") as object), worker: { keda: { enabled: true } } })).toThrow(/worker.keda needs redis/);
  expect(() => renderManifests({})).toThrow(/hypervisor/);
});
