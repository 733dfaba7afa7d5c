import { loadConfig } from "@svc/config";
import { resolveListenHost } from "./index";
import { decideListen } from "./listen-policy";

const cfg = (env: Record<string, string>) => loadConfig({ SVC_LOG_LEVEL: "silent", ...env });

describe("listen policy", () => {
  test("production without credentials refuses to start, saying what to set", () => {
    expect(decideListen(cfg({ SVC_DEPLOYMENT_MODE: "production" }))).toEqual({
      ok: false,
      reason: "refusing to start in production without credentials: set SVC_ADMIN_USER and SVC_ADMIN_PASSWORD, or SVC_API_TOKEN",
    });
  });

  test("development without credentials is open on 127.0.0.1 only, whatever SVC_BIND_HOST says", () => {
    expect(decideListen(cfg({ SVC_BIND_HOST: "0.0.0.0" }))).toMatchObject({
      ok: true,
      host: "127.0.0.1",
      open: true,
      warning: expect.stringContaining("ignoring SVC_BIND_HOST=0.0.0.0"),
    });
    expect(decideListen(cfg({}))).toMatchObject({ ok: true, host: "127.0.0.1", open: true, warning: expect.stringContaining("open") });
  });

  test("with credentials: SVC_BIND_HOST, all interfaces by default", () => {
    expect(decideListen(cfg({ SVC_DEPLOYMENT_MODE: "production", SVC_API_TOKEN: "t" }))).toEqual({ ok: true, host: "0.0.0.0", open: false });
    expect(decideListen(cfg({ SVC_ADMIN_USER: "a", SVC_ADMIN_PASSWORD: "p", SVC_BIND_HOST: "10.0.0.5" }))).toEqual({ ok: true, host: "10.0.0.5", open: false });
  });

  test("an admin user without a password (or the reverse) is refused", () => {
    expect(decideListen(cfg({ SVC_ADMIN_USER: "a" }))).toEqual({ ok: false, reason: expect.stringContaining("must be set together") });
    expect(decideListen(cfg({ SVC_ADMIN_PASSWORD: "p", SVC_API_TOKEN: "t" }))).toEqual({ ok: false, reason: expect.stringContaining("must be set together") });
  });

  test("resolveListenHost throws the reason and logs it, or warns about an open API", () => {
    const logged: string[] = [];
    const logger = { warn: (_f: unknown, m?: string) => void logged.push(`warn ${m}`), fatal: (_f: unknown, m?: string) => void logged.push(`fatal ${m}`) };
    expect(() => resolveListenHost(cfg({ SVC_DEPLOYMENT_MODE: "production" }), logger as never)).toThrow(/^refusing to start in production without credentials/);
    expect(resolveListenHost(cfg({ SVC_BIND_HOST: "0.0.0.0" }), logger as never)).toEqual({ host: "127.0.0.1", open: true });
    expect(resolveListenHost(cfg({ SVC_API_TOKEN: "t" }), logger as never)).toEqual({ host: "0.0.0.0", open: false });
    expect(logged).toEqual([expect.stringMatching(/^fatal refusing/), expect.stringMatching(/^warn no credentials configured: ignoring SVC_BIND_HOST/)]);
  });
});
