import { loadConfig } from "@svc/config";
import { createTestOperatorContext } from "@svc/testing";
import { shellOperator } from "@svc/engine/operators";
import { defaultHostExecutor } from "./host/deps";

const SECRETS = {
  DATABASE_URL: "postgres://svc:db-secret@127.0.0.1/svc",
  REDIS_URL: "redis://:redis-secret@127.0.0.1:6379",
  SVC_API_TOKEN: "token-secret",
  MODEL_PROVIDER_API_KEY: "model-secret",
};
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(SECRETS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(() => {
  for (const k of Object.keys(SECRETS)) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

async function envSeenBy(taskEnv?: Record<string, string>): Promise<Map<string, string>> {
  const ctx = createTestOperatorContext(loadConfig(process.env), "shell");
  await shellOperator.run(shellOperator.args.parse({ argv: ["env"], env: taskEnv }), ctx);
  return new Map(ctx.lines.filter((l) => l.stream === "stdout").map((l) => [l.line.slice(0, l.line.indexOf("=")), l.line.slice(l.line.indexOf("=") + 1)]));
}

test("a shell command gets an allowlisted environment: none of the worker's secrets", async () => {
  const env = await envSeenBy();
  for (const k of Object.keys(SECRETS)) expect(env.has(k)).toBe(false);
  expect([...env.keys()].filter((k) => k.startsWith("SVC_") || k.startsWith("PG") || k.startsWith("REDIS"))).toEqual([]);
  expect(env.get("PATH")).toBe(process.env.PATH);
});

test("a shell task's own env still reaches its command", async () => {
  const env = await envSeenBy({ GREETING: "$(id)" });
  expect(env.get("GREETING")).toBe("$(id)");
});

test("in local mode (SVC_SSH_HOST=local) the host executor that runs ansible-playbook and svc-vm passes the same allow-listed environment as a shell command", async () => {
  const ctx = createTestOperatorContext(loadConfig({ ...process.env, SVC_SSH_HOST: "local" }), "vm_create");
  const r = await defaultHostExecutor(ctx).run(["env"]);
  const env = new Map(
    r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  for (const k of Object.keys(SECRETS)) expect(env.has(k)).toBe(false);
  expect([...env.keys()].filter((k) => k.startsWith("SVC_") || k.startsWith("PG") || k.startsWith("REDIS"))).toEqual([]);
  expect([...env.keys()].sort()).toEqual([...(await envSeenBy()).keys()].sort());
});
