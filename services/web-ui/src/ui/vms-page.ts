import { z } from "zod";
import { HostNotFoundError, hostNameSchema, type HostRecord, type ProbedVm } from "@svc/hosts";
import { parseInput } from "@svc/http";
import { hostAnchor, statusOf, when } from "./host-status";
import { html, page, type Raw } from "./html";

/** `?host=NAME`: one host's VMs (empty: all, as the form's "All hosts" sends it); a name that is not a host name is a 400 page. */
export const vmsQuery = z.object({ host: z.preprocess((v) => (v === "" ? undefined : v), hostNameSchema.optional()) }).strict();
export type VmsQuery = z.output<typeof vmsQuery>;

/** Parse the page's query (BadRequestError, shown as the 400 page, when it is not valid). */
export const parseVmsQuery = (query: unknown): VmsQuery => parseInput(vmsQuery, query ?? {}, "query");

/** Why a host's VMs may be missing or out of date: never read, or not read since its last good probe. */
function staleNote(r: HostRecord, now: number): Raw | null {
  const s = statusOf(r, now);
  if (s.up) return null;
  const since = r.last_probe ? html`not read since ${when(r.last_probe.probed_at, now)} (its VMs below are from that probe)` : html`never read: no VMs known`;
  return html`<li data-host="${r.name}"><a href="/hosts#${hostAnchor(r.name)}">${r.name}</a>: ${since}; <span class="probe-error">${s.reason}</span></li>`;
}

function vmRow(host: string, v: ProbedVm, stale: boolean): Raw {
  return html`<tr data-host="${host}" data-vm="${v.name}"><td><strong>${v.name}</strong></td>
<td><a href="/hosts#${hostAnchor(host)}">${host}</a>${stale ? html` <span class="muted small">(stale)</span>` : html``}</td>
<td>${v.running ? html`<span class="state s-success">running</span>` : html`<span class="state">stopped</span>`}</td>
<td>${v.svc ? "yes" : "no"}</td><td>${v.memory_mb ?? "?"}</td><td>${v.cpus ?? "?"}</td></tr>`;
}

function hostFilter(hosts: readonly HostRecord[], chosen: string | undefined): Raw {
  const options = hosts.map((r) => html`<option value="${r.name}"${r.name === chosen ? html` selected` : html``}>${r.name}</option>`);
  return html`<form class="toolbar" method="get" action="/vms" role="search"><label for="host-filter">Host</label>
<select id="host-filter" name="host"><option value="">All hosts</option>${options}</select><button class="btn secondary" type="submit">Show</button></form>`;
}

/** Every VM of every host (or of `q.host`) from the hosts' last probes, with a note for each host not read lately. */
export function renderVmsPage(all: readonly HostRecord[], q: VmsQuery, now: number): string {
  if (q.host !== undefined && !all.some((r) => r.name === q.host)) throw new HostNotFoundError(q.host);
  const hosts = q.host === undefined ? all : all.filter((r) => r.name === q.host);
  const notes = hosts.map((r) => staleNote(r, now)).filter((n): n is Raw => n !== null);
  const rows = hosts.flatMap((r) => {
    const stale = !statusOf(r, now).up;
    return [...(r.last_probe?.vms ?? [])].sort((a, b) => a.name.localeCompare(b.name)).map((v) => vmRow(r.name, v, stale));
  });
  const body = html`${hostFilter(all, q.host)}
${notes.length ? html`<section class="banner info" aria-label="Hosts not read lately"><ul>${notes}</ul></section>` : html``}
<p class="muted small">${rows.length} VM(s) on ${hosts.length} host(s), from each host's last probe${q.host ? html` · <a href="/vms">all hosts</a>` : html``} · <a href="/hosts${q.host ? `#${hostAnchor(q.host)}` : ""}">room left</a></p>
<table class="vms"><thead><tr><th>VM</th><th>Host</th><th>State</th><th>Made by svc</th><th>Memory (MiB)</th><th>vCPUs</th></tr></thead>
<tbody>${rows}</tbody></table>
${rows.length ? html`` : html`<p class="muted">No VMs${q.host ? html` on ${q.host}` : html``}.</p>`}`;
  return page(q.host ? `VMs on ${q.host}` : "VMs", body, { wide: true });
}
