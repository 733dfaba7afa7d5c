import path from "node:path";
import express, { Router, type RequestHandler, type Response } from "express";
import type { Db } from "@svc/db";
import type { EngineApi } from "@svc/engine";
import { isSvcError, toProblem } from "@svc/errors";
import { createOpenStreams, notFoundHandler, type OpenStreams } from "@svc/http";
import { silentLogger, type Logger } from "@svc/logger";
import { askRouter } from "./ask-proxy";
import { renderCode, renderGraph } from "./dag-views";
import { renderGrid, renderGridTable } from "./grid";
import { apiCellLoader } from "./grid-data";
import { gridCellsFromDb } from "./grid-query";
import { streamGridEvents, type GridEventsOptions } from "./grid-events";
import { html, page } from "./html";
import { renderHome } from "./home";
import { streamHomeEvents } from "./home-events";
import { readHosts } from "./host-status";
import { renderHostsPage } from "./hosts-page";
import { renderLogPage } from "./log-page";
import { renderTriggerPage } from "./trigger-page";
import { parseVmsQuery, renderVmsPage } from "./vms-page";

/** The stream cap when the process passes no registry of its own (SVC_MAX_OPEN_STREAMS's default). */
const DEFAULT_MAX_OPEN_STREAMS = 200;

/** Stylesheet and page scripts: no data in them, served without credentials (like the login prompt's page). */
export const ASSETS_DIR = path.join(__dirname, "..", "..", "assets");

export interface UiOptions {
  logger?: Logger;
  /** Base URL of the assistant API for the ask box; unset hides nothing but answers 503. */
  assistantUrl?: string;
  gridEvents?: Partial<GridEventsOptions>;
  /** Read-only handle for the grid's one-query read of its squares (else the engine API is paged) and the host pages (else 503). */
  db?: Db;
  /** The process's open event streams (capped; closed on shutdown); without it the router keeps its own. */
  streams?: OpenStreams;
}

function sendPage(res: Response, status: number, body: string): void {
  res.status(status).type("text/html").send(body);
}

/** Wrap a page renderer: typed errors become an HTML error page with the matching status. */
const view =
  (render: (req: Parameters<RequestHandler>[0]) => Promise<string>): RequestHandler =>
  async (req, res, next) => {
    try {
      sendPage(res, 200, await render(req));
    } catch (e) {
      if (!isSvcError(e)) return next(e);
      const p = toProblem(e);
      sendPage(res, p.status, page(p.title, html`<p>${p.detail}</p>`));
    }
  };

/** Server-rendered pages (DAG list, trigger form, grid, graph, code, log, hosts, VMs), the live streams of the DAG list and the grid, and the ask box. */
export function uiRouter(api: EngineApi, auth: RequestHandler, opts: UiOptions = {}): Router {
  const logger = opts.logger ?? silentLogger();
  const events: GridEventsOptions = {
    pollMs: opts.gridEvents?.pollMs ?? 500,
    heartbeatMs: opts.gridEvents?.heartbeatMs ?? 15_000,
    streams: opts.streams ?? createOpenStreams(DEFAULT_MAX_OPEN_STREAMS),
  };
  const db = opts.db;
  const cells = db ? (d: string, runIds: string[]) => gridCellsFromDb(db, d, runIds) : apiCellLoader(api);
  const dagId = (req: Parameters<RequestHandler>[0]) => String(req.params.dag_id);
  const r = Router();
  r.use("/static", express.static(ASSETS_DIR, { maxAge: "10m", index: false }), notFoundHandler);
  r.get("/", (_req, res) => res.redirect(302, "/home"));
  r.get(
    "/home",
    auth,
    view(() => renderHome(api, db)),
  );
  r.get("/home/events", auth, (req, res) => streamHomeEvents(api, db, logger, events, req, res));
  r.get(
    "/dags/:dag_id/grid",
    auth,
    view((req) => renderGrid(api, cells, dagId(req))),
  );
  r.get("/dags/:dag_id/grid/table", auth, async (req, res) => {
    const { table, runs } = await renderGridTable(api, cells, dagId(req));
    res.json({ html: table.value, runs });
  });
  r.get("/dags/:dag_id/grid/events", auth, (req, res) => streamGridEvents(api, cells, logger, events, req, res));
  r.get(
    "/dags/:dag_id/trigger",
    auth,
    view((req) => renderTriggerPage(api, dagId(req))),
  );
  r.get(
    "/dags/:dag_id/graph",
    auth,
    view((req) => renderGraph(api, dagId(req))),
  );
  r.get(
    "/dags/:dag_id/code",
    auth,
    view((req) => renderCode(api, dagId(req))),
  );
  // The hosts and their VMs from the last probes in Postgres: a page load contacts no host.
  r.get(
    "/hosts",
    auth,
    view(async () => renderHostsPage(await readHosts(db), Date.now())),
  );
  r.get(
    "/vms",
    auth,
    view(async (req) => {
      const q = parseVmsQuery(req.query);
      return renderVmsPage(await readHosts(db), q, Date.now());
    }),
  );
  r.get(
    "/dags/:dag_id/runs/:run_id/tasks/:task_id/logs/:try",
    auth,
    view((req) => {
      const tryNumber = Number(req.params.try);
      return renderLogPage(api, dagId(req), String(req.params.run_id), String(req.params.task_id), tryNumber);
    }),
  );
  r.use(askRouter(opts.assistantUrl, auth, logger));
  return r;
}
