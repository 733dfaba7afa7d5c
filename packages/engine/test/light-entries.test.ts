// The engine's entries load none of the code that reaches hosts: a process that serves the engine
// API (web UI, CLI, assistant API) or implements its ports gets no SSH, libvirt or operator code
// from @svc/engine. Each entry is required in a fresh Node process, resolved as the web UI resolves it.
import { execFileSync } from "node:child_process";
import path from "node:path";

const REPO = path.join(__dirname, "../../..");
const HOST_CODE = [/\/packages\/operators\//, /\/packages\/host\//, /\/packages\/vm\//, /\/node_modules\/.*\bssh2\//];

/** The files a fresh Node process holds (require.cache) after requiring `entry` from services/web-ui. */
function modulesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "-e", script], { cwd: path.join(REPO, "services/web-ui"), encoding: "utf8", timeout: 50_000 });
  return JSON.parse(out) as string[];
}

const hostCodeIn = (modules: string[]) => modules.filter((m) => HOST_CODE.some((re) => re.test(m)));

test("@svc/engine (the API and types) loads no operator, SSH or libvirt code", () => {
  const modules = modulesLoadedBy("@svc/engine");
  expect(modules).toContain(path.join(REPO, "packages/engine/src/index.ts"));
  expect(modules).toContain(path.join(REPO, "packages/engine/src/api/open-engine-api.ts"));
  expect(hostCodeIn(modules)).toEqual([]);
});

test("@svc/engine/runtime (the worker's and scheduler's entry) loads no operator, SSH or libvirt code: the services wire the operators in", () => {
  const modules = modulesLoadedBy("@svc/engine/runtime");
  expect(modules).toContain(path.join(REPO, "packages/engine/src/runtime/execute-try.ts"));
  expect(hostCodeIn(modules)).toEqual([]);
});

test("@svc/engine/ports (what operators and host routers implement) loads only the ports, none of the engine", () => {
  const ours = modulesLoadedBy("@svc/engine/ports").filter((m) => m.startsWith(path.join(REPO, "packages")));
  expect(ours.map((m) => path.relative(REPO, m)).sort()).toEqual(["packages/engine/src/ports/index.ts", "packages/engine/src/ports/reschedule.ts"]);
});
