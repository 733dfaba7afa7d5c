import { Router, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { SvcError, UnavailableError } from "@svc/errors";
import { hostNameSchema, hostView, type HostService } from "@svc/hosts";
import { actorOf, parseInput } from "@svc/http";

// The host inventory under /api/v1/hosts: viewers read it (from Postgres: no host is contacted),
// an op probes it (POST .../probe: SSH to each host, results written), only admin changes it
// (route-roles.ts). A host is never added by a request on anyone's behalf but an admin's: no
// intent, flow or model reaches these routes. Errors are SvcErrors, answered as problem JSON by
// the app's errorHandler.

const nameParams = z.object({ name: hostNameSchema });
/** `probe=true` on a read was the old way to probe: it answers 405 naming the POST (a GET must not contact hosts). */
const probeQuery = z.object({ probe: z.enum(["true", "false"]).optional() }).strict();
/** Every host: Airflow's `~` for "all" in a path. */
const ALL = "~";
const removeQuery = z.object({ force: z.enum(["true", "false"]).optional() }).strict();
const addBody = z
  .object({
    name: z.string(),
    ssh_user: z.string(),
    address: z.string(),
    port: z.number().int().optional(),
    key_path: z.string(),
    host_key: z.string().optional(),
    libvirt_uri: z.string().optional(),
    images_dir: z.string().optional(),
    disks_dir: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    reserve_memory_mb: z.number().int().optional(),
    reserve_disk_gb: z.number().int().optional(),
    reserve_vcpus: z.number().int().optional(),
    cpu_ratio: z.number().optional(),
    /** false: record without contacting the host (no key pinned unless host_key is given). */
    probe: z.boolean().optional(),
  })
  .strict();

/** `?probe=true` on a read: 405 naming the POST that probes (`Allow`: the methods of the URL read). */
function refuseProbeOnRead(query: unknown, name: string, allow: string, res: Response): void {
  const q = parseInput(probeQuery, query ?? {}, "query");
  if (q.probe !== "true") return;
  res.setHeader("Allow", allow);
  throw new SvcError(
    "method_not_allowed",
    `A read does not probe hosts: POST /api/v1/hosts/${name}/probe (role op) probes ${name === ALL ? "every host" : `'${name}'`} and records the results`,
  );
}

/** The /hosts routes; without a host service (not wired) they answer 503. */
export function hostsRouter(hosts: HostService | undefined, auth: RequestHandler): Router {
  const r = Router();
  const svc = () => {
    if (!hosts) throw new UnavailableError("the host inventory is not available in this process");
    return hosts;
  };
  r.get("/hosts", auth, async (req, res) => {
    refuseProbeOnRead(req.query, ALL, "GET, POST", res);
    const list = await svc().list();
    res.json({ hosts: list.map(hostView), total_entries: list.length });
  });
  r.get("/hosts/:name", auth, async (req, res) => {
    const { name } = parseInput(nameParams, req.params, "path");
    refuseProbeOnRead(req.query, name, "GET, DELETE", res);
    res.json(hostView(await svc().info(name)));
  });
  r.post("/hosts/:name/probe", auth, async (req, res) => {
    if (req.params.name === ALL) {
      const list = await svc().list({ probe: true });
      return void res.json({ hosts: list.map(hostView), total_entries: list.length });
    }
    const { name } = parseInput(nameParams, req.params, "path");
    res.json(hostView(await svc().info(name, { probe: true })));
  });
  r.post("/hosts", auth, async (req, res) => {
    const { probe, ...body } = parseInput(addBody, req.body ?? {}, "body");
    res.status(201).json(hostView(await svc().add(body, { probe: probe ?? true, actor: actorOf(res) })));
  });
  r.post("/hosts/:name/drain", auth, async (req, res) => {
    const { name } = parseInput(nameParams, req.params, "path");
    res.json(hostView(await svc().drain(name, actorOf(res))));
  });
  r.post("/hosts/:name/activate", auth, async (req, res) => {
    const { name } = parseInput(nameParams, req.params, "path");
    res.json(hostView(await svc().activate(name, actorOf(res))));
  });
  r.delete("/hosts/:name", auth, async (req, res) => {
    const { name } = parseInput(nameParams, req.params, "path");
    const q = parseInput(removeQuery, req.query ?? {}, "query");
    res.json(await svc().remove(name, { force: q.force === "true", actor: actorOf(res) }));
  });
  return r;
}
