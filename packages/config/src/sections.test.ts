import { ConfigError, loadConfig } from "./index";
import { CHILD_ENV_ALLOWLIST } from "./child-env";

describe("settings sections parsed by loadConfig", () => {
  test("childEnv keeps only the allowlisted variables: never DATABASE_URL, SVC_* or API keys", () => {
    const c = loadConfig({ PATH: "/usr/bin:/bin", HOME: "/home/svc", DATABASE_URL: "postgres://u:pw@127.0.0.1/svc", SVC_API_TOKEN: "t".repeat(20), MODEL_PROVIDER_API_KEY: "k" });
    expect(c.childEnv).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/svc" });
    expect(Object.keys(c.childEnv).every((k) => (CHILD_ENV_ALLOWLIST as readonly string[]).includes(k))).toBe(true);
  });

  test("SVC_CLOUD_APPROVAL: op (an op approves VM-creating runs on cloud hosts) when unset, none when set so, anything else refused by name", () => {
    expect(loadConfig({}).placement).toEqual({ weigher: "spread", cloudApproval: "op" });
    expect(loadConfig({ SVC_CLOUD_APPROVAL: "none" }).placement.cloudApproval).toBe("none");
    expect(() => loadConfig({ SVC_CLOUD_APPROVAL: "admin" })).toThrow(/SVC_CLOUD_APPROVAL: must be one of op, none/);
  });

  test("SVC_LOG_FORMAT: auto when unset, json or pretty when set, anything else refused by name", () => {
    expect(loadConfig({}).logFormat).toBe("auto");
    expect(loadConfig({ SVC_LOG_FORMAT: "json" }).logFormat).toBe("json");
    expect(loadConfig({ SVC_LOG_FORMAT: "pretty" }).logFormat).toBe("pretty");
    expect(() => loadConfig({ SVC_LOG_FORMAT: "xml" })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_LOG_FORMAT: "xml" })).toThrow(/SVC_LOG_FORMAT/);
  });

  test("libvirt pool and network: defaults, and a pool name or directory that is not one is refused", () => {
    expect(loadConfig({}).libvirt).toEqual({ pool: "default", poolDir: "/var/lib/libvirt/images", network: "default" });
    expect(loadConfig({ SVC_LIBVIRT_POOL: "lab", SVC_LIBVIRT_POOL_DIR: "/srv/pool", SVC_LIBVIRT_NETWORK: "labnet" }).libvirt).toEqual({
      pool: "lab",
      poolDir: "/srv/pool",
      network: "labnet",
    });
    expect(() => loadConfig({ SVC_LIBVIRT_POOL: "a b" })).toThrow(/SVC_LIBVIRT_POOL:/);
    expect(() => loadConfig({ SVC_LIBVIRT_POOL_DIR: "relative/dir" })).toThrow(/SVC_LIBVIRT_POOL_DIR:/);
  });

  test("SVC_WORKER_HOSTS is kept as given for the worker to check; empty means unset", () => {
    expect(loadConfig({ SVC_WORKER_HOSTS: "a,b" }).worker.hosts).toBe("a,b");
    expect(loadConfig({ SVC_WORKER_HOSTS: "" }).worker.hosts).toBeUndefined();
  });
});
