/** Escape text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  // Values are strings, numbers, booleans or dates: String() is their display form.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- see above
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
  success: "#008000",
  failed: "#ff0000",
  running: "#00ff00",
  queued: "#808080",
  scheduled: "#d2b48c",
  up_for_retry: "#ffd700",
  up_for_reschedule: "#40e0d0",
  upstream_failed: "#ffa500",
  skipped: "#ff69b4",
  none: "#ffffff",
};

/** A coloured state badge. */
export function stateBadge(state: string | null | undefined): Raw {
  const s = state ?? "none";
  return html`<span class="state s-${s}" title="${s}">${s}</span>`;
}

/** Full page: shared stylesheet, top bar, optional page scripts (served from /static, nothing external). */
export function page(title: string, body: Raw, opts: { refreshSeconds?: number; scripts?: string[]; wide?: boolean } = {}): string {
  const refresh = opts.refreshSeconds ? html`<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : html``;
  const scripts = (opts.scripts ?? []).map((s) => html`<script src="/static/${s}" defer></script>`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - svc</title>${refresh}<link rel="stylesheet" href="/static/ui.css">${scripts}</head>
<body><header class="topbar"><a class="brand" href="/home">svc</a><nav aria-label="Main"><a href="/home">DAGs</a><a href="/hosts">Hosts</a><a href="/vms">VMs</a><a href="/api/v1/openapi.json">API</a></nav></header>
<main class="${opts.wide ? "wide" : ""}"><h1>${title}</h1>
${body}
</main></body></html>`.value;
}
