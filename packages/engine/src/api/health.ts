import { sql } from "kysely";
import pkg from "../../package.json";
import type { ApiContext } from "./deps";
import type { ApiHealthInfo, ApiVersionInfo } from "./schemas";
import { isoOrNull } from "./serialize";

/** A scheduler is healthy when one of them beat within this window. */
export const SCHEDULER_HEALTH_WINDOW_MS = 30_000;

/** Airflow API level we are compatible with; the local part names our own version. */
export const API_COMPAT_VERSION = `2.10.0+svc.${pkg.version}`;

/** Health (metadatabase, scheduler heartbeats) and version. */
export function monitoringOps(ctx: ApiContext) {
  const { db } = ctx;

  async function health(): Promise<ApiHealthInfo> {
    let dbOk = true;
    let last: Date | null = null;
    let fresh = false;
    let processedLast: Date | null = null;
    try {
      // Compared on the database clock, which is the clock the heartbeat writers use (now()).
      const row = await db
        .selectFrom("component_heartbeat")
        .select([
          sql<Date | null>`max(last_seen)`.as("last"),
          sql<boolean>`coalesce(max(last_seen) >= now() - make_interval(secs => ${SCHEDULER_HEALTH_WINDOW_MS / 1000}), false)`.as("fresh"),
          // The DAG processor is the leader's: done once a live scheduler's first DAG-folder pass committed.
          sql<Date | null>`max(last_seen) filter (where info->>'dags_processed' = 'true' and last_seen >= now() - make_interval(secs => ${SCHEDULER_HEALTH_WINDOW_MS / 1000}))`.as(
            "processed",
          ),
        ])
        .where("component", "=", "scheduler")
        .executeTakeFirst();
      last = row?.last ?? null;
      fresh = row?.fresh ?? false;
      processedLast = row?.processed ?? null;
    } catch (e) {
      dbOk = false;
      ctx.logger.warn({ err: String(e) }, "health: metadatabase query failed");
    }
    const hosts = dbOk ? await hypervisorHosts(db).catch((e) => (ctx.logger.warn({ err: String(e) }, "health: worker hosts query failed"), undefined)) : undefined;
    return {
      ...(hosts && Object.keys(hosts).length ? { hypervisor_hosts: hosts } : {}),
      metadatabase: { status: dbOk ? "healthy" : "unhealthy" },
      scheduler: { status: fresh ? "healthy" : "unhealthy", latest_scheduler_heartbeat: isoOrNull(last ? new Date(last) : null) },
      triggerer: { status: null, latest_triggerer_heartbeat: null },
      dag_processor: {
        status: !dbOk ? null : processedLast ? "healthy" : "unhealthy",
        latest_dag_processor_heartbeat: isoOrNull(processedLast ? new Date(processedLast) : null),
      },
    };
  }

  function version(): ApiVersionInfo {
    return { version: API_COMPAT_VERSION, git_version: null };
  }

  return { health, version };
}

type HostsHealth = NonNullable<ApiHealthInfo["hypervisor_hosts"]>;
type ReportedHost = { up?: boolean; reason?: string; probedAt?: string };

/** The hosts live workers report in their heartbeats (worker.ts: info.hosts), host by host. */
async function hypervisorHosts(db: ApiContext["db"]): Promise<HostsHealth> {
  const rows = await db
    .selectFrom("component_heartbeat")
    .select(["instance_id", sql<Record<string, ReportedHost> | null>`info -> 'hosts'`.as("hosts")])
    .where("component", "=", "worker")
    .where(sql<boolean>`last_seen >= now() - make_interval(secs => ${SCHEDULER_HEALTH_WINDOW_MS / 1000})`)
    .where(sql<boolean>`info ? 'hosts'`)
    .orderBy("instance_id")
    .execute();
  const out: HostsHealth = {};
  for (const r of rows) {
    for (const [host, h] of Object.entries(r.hosts ?? {})) {
      const entry = (out[host] ??= { status: "unhealthy", workers: [] });
      entry.workers.push({ worker: r.instance_id, up: h.up === true, reason: h.reason ?? null, probed_at: h.probedAt ?? null });
      if (h.up === true) entry.status = "healthy";
    }
  }
  return out;
}
