import type { DeployReport } from "../deploy";
import type { ApplyHooks, Change, OsPlugin, PluginSettings } from "../types";

/** Left-aligned columns with a header rule. */
export function table(columns: string[], rows: string[][]): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(columns), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n") + "\n";
}

export function listRows(plugins: readonly OsPlugin[], here: { id: string; versionId: string }) {
  return plugins.map((p) => ({ name: p.name, kind: p.kind, version: p.version, description: p.description, matches_host: p.matches(here) }));
}

export function infoDocument(p: OsPlugin, settings: PluginSettings) {
  return {
    name: p.name,
    kind: p.kind,
    version: p.version,
    description: p.description,
    family: p.family,
    checks: p.info.checks,
    changes: p.info.changes,
    settings: {
      SVC_VM_IMAGES_DIR: settings.imagesDir,
      "SVC_ASSISTANT_PORT, SVC_WEB_UI_PORT": settings.ports.join(","),
      SVC_LIBVIRT_POOL: settings.poolName,
      SVC_LIBVIRT_POOL_DIR: settings.poolDir,
      SVC_LIBVIRT_NETWORK: settings.networkName,
    },
    dependencies: p.info.dependencies,
  };
}

export function infoText(doc: ReturnType<typeof infoDocument>): string {
  const section = (title: string, items: string[]) => `${title}:\n${items.map((i) => `  - ${i}`).join("\n")}\n`;
  return [
    `${doc.name} (${doc.kind} plugin, version ${doc.version}, ${doc.family} family)\n${doc.description}\n`,
    section("Checks", doc.checks),
    section("Changes (only what differs from the desired state)", doc.changes),
    section(
      "Settings (current values)",
      Object.entries(doc.settings).map(([k, v]) => `${k} = ${v}`),
    ),
    section("Dependencies", doc.dependencies),
  ].join("\n");
}

const argvText = (argv: string[]) => argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");

/** The deploy report as JSON: {"plugin", "changes", "applied", "failed", ...}. */
export function deployJson(r: DeployReport): string {
  return (
    JSON.stringify({
      plugin: r.plugin,
      target: r.target,
      dry_run: r.dryRun,
      changes: r.changes.map((c) => ({ id: c.id, kind: c.kind, description: c.description, steps: c.steps.map((s) => argvText(s.argv)) })),
      applied: r.applied,
      failed: r.failed,
      not_tried: r.notTried,
      notes: r.notes,
    }) + "\n"
  );
}

/** The plan, step by step, for a dry run or a confirmation prompt. */
export function planText(changes: Change[]): string {
  return changes.map((c, i) => `[${i + 1}/${changes.length}] ${c.id}: ${c.description}\n${c.steps.map((s) => `    would run: ${argvText(s.argv)}\n`).join("")}`).join("");
}

/** Progress lines per change and step, as they happen. */
export function progressHooks(write: (t: string) => void): ApplyHooks {
  return {
    onChangeStart: (c, i, n) => write(`[${i + 1}/${n}] ${c.id}: ${c.description}\n`),
    onStep: (_c, s) => write(`    + ${argvText(s.argv)}\n`),
    onChangeDone: (c, ok) => write(ok ? `    ok\n` : `    FAILED: ${c.id}\n`),
  };
}

/** The end of a table-mode deploy: a summary, and the failing step with its output. */
export function deploySummary(r: DeployReport): string {
  const lines = r.notes.map((n) => `note: ${n}`);
  if (r.dryRun) {
    lines.push(r.changes.length ? `dry run: ${r.changes.length} change(s) planned on ${r.target}; nothing was changed` : `nothing to change: ${r.target} matches ${r.plugin}`);
  } else if (!r.changes.length) {
    lines.push(`nothing to change: ${r.target} matches ${r.plugin}`);
  } else {
    lines.push(`Summary: ${r.changes.length} change(s), ${r.applied.length} applied, ${r.failed.length} failed, ${r.notTried.length} not tried`);
    for (const f of r.failed) lines.push(`failed step (${f.change}): ${f.step} (exit ${f.code})`, ...f.output.split("\n").map((l) => `    ${l}`));
  }
  return lines.join("\n") + "\n";
}
