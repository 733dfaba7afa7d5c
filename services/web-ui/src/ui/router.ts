import { Router, type RequestHandler, type Response } from "express";
import type { EngineApi } from "@svc/engine";
import { isSvcError, toProblem } from "@svc/errors";
import { html, page } from "./html";
import { renderGrid } from "./grid";
import { renderHome } from "./home";
import { renderLogPage } from "./log-page";

function sendPage(res: Response, status: number, body: string): void {
  res.status(status).type("text/html").send(body);
}

/** Wrap a page renderer: typed errors become an HTML error page with the matching status. */
const view = (render: (req: Parameters<RequestHandler>[0]) => Promise<string>): RequestHandler => async (req, res, next) => {
  try {
    sendPage(res, 200, await render(req));
  } catch (e) {
    if (!isSvcError(e)) return next(e);
    const p = toProblem(e);
    sendPage(res, p.status, page(p.title, html`<p>${p.detail}</p>`));
  }
};

/** Server-rendered pages: `/` → `/home`, the DAG list, a DAG's grid, a task log. */
export function uiRouter(api: EngineApi, auth: RequestHandler): Router {
  const r = Router();
  r.get("/", (_req, res) => res.redirect(302, "/home"));
  r.get("/home", auth, view(() => renderHome(api)));
  r.get("/dags/:dag_id/grid", auth, view((req) => renderGrid(api, String(req.params.dag_id))));
  r.get("/dags/:dag_id/runs/:run_id/tasks/:task_id/logs/:try", auth, view((req) => {
    const tryNumber = Number(req.params.try);
    return renderLogPage(api, String(req.params.dag_id), String(req.params.run_id), String(req.params.task_id), tryNumber);
  }));
  return r;
}
