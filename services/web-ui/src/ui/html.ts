/** Escape text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tagged template: interpolated values are escaped unless wrapped with `raw`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += (Array.isArray(v) ? v.map(render).join("") : render(v)) + (strings[i + 1] ?? "");
  });
  return new Raw(out);
}

/** Already-safe HTML. */
export class Raw {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const render = (v: unknown): string => (v instanceof Raw ? v.value : escapeHtml(v));

/** URL path segment (for links built from ids). */
export const seg = (s: string | number): string => encodeURIComponent(String(s));

/** Airflow's state colours, so the grid reads the same. */
export const STATE_COLOURS: Record<string, string> = {
  success: "#008000", failed: "#ff0000", running: "#00ff00", queued: "#808080", scheduled: "#d2b48c",
  up_for_retry: "#ffd700", upstream_failed: "#ffa500", skipped: "#ff69b4", none: "#ffffff",
};

/** A coloured state badge. */
export function stateBadge(state: string | null | undefined): Raw {
  const s = state ?? "none";
  return html`<span class="state" style="background:${STATE_COLOURS[s] ?? "#ddd"}" title="${s}">${s}</span>`;
}

/** Full page with a small stylesheet and a header link home. */
export function page(title: string, body: Raw, opts: { refreshSeconds?: number } = {}): string {
  const refresh = opts.refreshSeconds ? html`<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : html``;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} - svc</title>${refresh}
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f4f4f4}
.state{display:inline-block;padding:0 .4rem;border-radius:3px;border:1px solid #999;font-size:.85em}
.cell{display:inline-block;width:1.1rem;height:1.1rem;border:1px solid #999;border-radius:2px}
pre{background:#111;color:#eee;padding:1rem;overflow:auto}nav a{margin-right:1rem}
</style></head>
<body><nav><a href="/home">DAGs</a><a href="/api/v1/openapi.json">API</a></nav><h1>${title}</h1>
${body}
</body></html>`.value;
}
