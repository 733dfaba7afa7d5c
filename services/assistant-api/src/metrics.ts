import type { RequestHandler } from "express";

/** Request counters for /metrics; flow counts are read from Postgres at scrape time. */
export interface Metrics {
  /** Counts each request by method, matched route (not the raw path: bounded labels) and status. */
  middleware: RequestHandler;
  render(flowsByStatus: Record<string, number>): string;
}

const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** In-process counters rendered in the Prometheus text format (0.0.4). */
export function createMetrics(): Metrics {
  const requests = new Map<string, number>();
  return {
    middleware(req, res, next) {
      res.on("finish", () => {
        const routePath = (req.route as { path?: unknown } | undefined)?.path;
        const route = typeof routePath === "string" && routePath ? `${req.baseUrl}${routePath}` : "unmatched";
        const key = `method="${esc(req.method)}",route="${esc(route)}",status="${res.statusCode}"`;
        requests.set(key, (requests.get(key) ?? 0) + 1);
      });
      next();
    },
    render(flows) {
      const lines = [
        "# HELP svc_assistant_http_requests_total HTTP requests answered by the assistant API.",
        "# TYPE svc_assistant_http_requests_total counter",
        ...[...requests].map(([labels, n]) => `svc_assistant_http_requests_total{${labels}} ${n}`),
        "# HELP svc_flows Orchestration flows by status.",
        "# TYPE svc_flows gauge",
        ...Object.entries(flows).map(([status, n]) => `svc_flows{status="${esc(status)}"} ${n}`),
      ];
      return lines.join("\n") + "\n";
    },
  };
}
