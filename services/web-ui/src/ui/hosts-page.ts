import { hostRegion, hostUp, type HostCapacity, type HostRecord } from "@svc/hosts";
import { hostAnchor, MAX_PROBE_AGE_MS, roomOf, statusOf, vcpuCapacity, when } from "./host-status";
import { html, page, seg, type Raw } from "./html";

/** Up or down at the last probe, its age, and why when it is down or stale. */
function probeCell(r: HostRecord, now: number): Raw {
  const s = statusOf(r, now);
  const read = r.last_probe ? html`<div class="muted small">last read ${when(r.last_probe.probed_at, now)}</div>` : html`<div class="muted small">never read</div>`;
  if (s.up) return html`<span class="state s-success">up</span> <span class="muted small">probed ${when(r.probed_at!, now)}</span>`;
  return html`<span class="state s-failed">down</span> <span class="small probe-error">${s.reason}</span>${read}`;
}

/** Memory, vCPUs and disk left after the host's reserve: the numbers placement decides on. */
function roomCells(r: HostRecord, c: HostCapacity): Raw {
  const n = roomOf(r, c);
  const cap = vcpuCapacity(r, c);
  return html`<td class="mem" title="after a ${r.reserve_memory_mb} MiB reserve">${n.memory_free_mb} / ${c.memory_total_mb} MiB free</td>
<td class="cpu" title="${c.vcpus_total} × ${r.cpu_ratio} − ${r.reserve_vcpus} reserved; ${n.vcpus_free} free">${c.vcpus_used} / ${cap} used</td>
<td class="disk" title="after a ${r.reserve_disk_gb} GB reserve, on ${c.disk_path}">${n.disk_free_gb} / ${c.disk_total_gb} GB free</td>
<td class="images small">${c.images.length ? c.images.join(", ") : html`<span class="muted">none</span>`}</td>
<td class="vms"><a href="/vms?host=${seg(r.name)}" title="${c.vm_count} made by svc">${c.vms.length}</a></td>`;
}

/** A cloud host: its provider and region, up unless its last identity call failed (with the provider's error), and no room to show (the provider's quota). */
function cloudCells(r: HostRecord, now: number): Raw {
  const s = hostUp(r, MAX_PROBE_AGE_MS, now);
  const checked = r.probed_at ? html` <span class="muted small">checked ${when(r.probed_at, now)}</span>` : html` <span class="muted small">identity not checked yet</span>`;
  const status = s.up ? html`<span class="state s-success">up</span>${checked}` : html`<span class="state s-failed">down</span> <span class="small probe-error">${s.reason}</span>`;
  return html`<td class="probe">${status}</td>
<td class="mono small">${r.address}:${r.port}</td><td class="provider">${r.provider} <span class="mono">${hostRegion(r) ?? ""}</span></td>
<td colspan="5" class="muted">a ${r.provider} account: no host capacity (its VMs bill the account; svc-vm list vm -C ${r.name})</td>`;
}

function hostRow(r: HostRecord, now: number): Raw {
  const labels = Object.entries(r.labels).map(([k, v]) => html`<span class="tag">${k}=${v}</span>`);
  const state = r.state === "draining" ? html`<span class="state s-up_for_retry">draining</span>` : html`<span class="state">active</span>`;
  if (r.provider !== "libvirt") {
    return html`<tr data-host="${r.name}" data-provider="${r.provider}"><th scope="row" id="${hostAnchor(r.name)}"><strong>${r.name}</strong><div>${labels}</div></th>
<td class="host-state">${state}</td>${cloudCells(r, now)}</tr>`;
  }
  return html`<tr data-host="${r.name}"><th scope="row" id="${hostAnchor(r.name)}"><strong>${r.name}</strong><div>${labels}</div></th>
<td class="host-state">${state}</td><td class="probe">${probeCell(r, now)}</td>
<td class="mono small">${r.ssh_user}@${r.address}:${r.port}</td><td class="mono small">${r.libvirt_uri}</td>
${r.last_probe ? roomCells(r, r.last_probe) : html`<td colspan="5" class="muted">no probe recorded</td>`}</tr>`;
}

/** Every host of the inventory with its state, its last probe and the room left (read from Postgres; nothing is probed). */
export function renderHostsPage(hosts: readonly HostRecord[], now: number): string {
  const body = html`<p class="muted">From each host's last probe (the workers probe the hosts they serve); a probe older than 30 s counts as down, as placement counts it. Room left is after each host's reserve.</p>
<table class="hosts"><thead><tr><th>Host</th><th>State</th><th>Last probe</th><th>SSH or API</th><th>libvirt or cloud</th><th>Memory</th><th>vCPUs</th><th>Disk</th><th>Images</th><th>VMs</th></tr></thead>
<tbody>${hosts.map((r) => hostRow(r, now))}</tbody></table>
${hosts.length ? html`` : html`<p class="muted">No hosts in the inventory (svc-hosts add).</p>`}`;
  return page("Hosts", body, { wide: true });
}
