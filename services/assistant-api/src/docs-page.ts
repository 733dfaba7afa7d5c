// eslint-disable-next-line @typescript-eslint/no-base-to-string -- OpenAPI fields are strings or numbers, whose String() is their display form
const esc = (s: unknown) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

type Doc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, unknown> };
};

const refName = (x: unknown) => {
  const r = (x as { $ref?: string } | undefined)?.$ref;
  return r ? r.split("/").pop()! : "";
};

/**
 * The OpenAPI document as a self-contained HTML page (no scripts, no CDN): each operation with
 * its parameters, body and responses, then every schema as JSON.
 */
export function renderDocsPage(doc: Doc): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = ((op.parameters as { name: string; in: string; required: boolean; description?: string }[] | undefined) ?? [])
        .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ", required" : ""})${p.description ? `: ${esc(p.description)}` : ""}</li>`)
        .join("");
      const bodyRef = refName((op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.["application/json"]?.schema);
      const responses = Object.entries(op.responses as Record<string, { description: string; content: Record<string, { schema?: unknown }> }>)
        .map(([status, r]) => {
          const [type, c] = Object.entries(r.content)[0] ?? ["", {}];
          const name = refName(c.schema);
          return `<li><b>${esc(status)}</b> ${esc(r.description)} <small>${esc(type)}${name ? ` · <a href="#schema-${esc(name)}">${esc(name)}</a>` : ""}</small></li>`;
        })
        .join("");
      const open = Array.isArray(op.security) && op.security.length === 0;
      return `<section><h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${open ? " <small>(no auth)</small>" : ""}</h3>
<p>${esc(op.summary)}</p>${params ? `<p>Parameters:</p><ul>${params}</ul>` : ""}${bodyRef ? `<p>Body: <a href="#schema-${esc(bodyRef)}">${esc(bodyRef)}</a></p>` : ""}<p>Responses:</p><ul>${responses}</ul></section>`;
    }),
  );
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3><pre>${esc(JSON.stringify(s, null, 2))}</pre></section>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f6f6f6;padding:.75rem;overflow:auto;font-size:.8rem}
.m{display:inline-block;min-width:3.5rem;text-align:center;border-radius:3px;color:#fff;font-size:.8rem;padding:.1rem .3rem}.get{background:#2b7bb9}.post{background:#3a9d5d}</style>
</head><body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a>. Authentication: HTTP basic or a bearer token, except where marked.</p>
<h2>Operations</h2>${ops.join("\n")}<h2>Schemas</h2>${schemas}</body></html>`;
}
