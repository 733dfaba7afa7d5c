// `pnpm lint` step: every name a package's `exports` map offers must be imported by some file
// outside that package (another package, a service, bench/, scripts/ or test/). A name only the
// package itself uses is internal: import it by relative path, not through the public entry.
// `--report` prints, per entry, how many names it exports and how many are used outside.
import path from "node:path";
import { exportUsage, unusedExports, type ExportUsage } from "./lib/export-usage";

function report(usages: ExportUsage[]): string {
  const rows = usages.map(({ entry, used }) => {
    const spec = entry.subpath === "." ? entry.pkg : `${entry.pkg}/${entry.subpath.slice(2)}`;
    const usedCount = entry.names.filter((n) => used.has(n.name)).length;
    return [spec, String(entry.names.length), String(usedCount)];
  });
  const header = ["entry", "exported", "used outside"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const total = (i: number): number => rows.reduce((sum, r) => sum + Number(r[i]), 0);
  return [line(header), ...rows.map(line), line(["total", String(total(1)), String(total(2))])].join("\n");
}

function main(argv: string[]): number {
  const rootFlag = argv.indexOf("--root");
  const root = path.resolve(rootFlag >= 0 ? argv[rootFlag + 1]! : path.join(__dirname, ".."));
  const usages = exportUsage(root);
  if (argv.includes("--report")) console.log(report(usages));
  const unused = unusedExports(usages);
  for (const u of unused) {
    console.error(`${path.relative(root, u.file)}:${u.line}  ${u.spec} exports ${u.name}, which nothing outside ${path.relative(root, u.pkgDir)} imports`);
  }
  if (unused.length > 0) {
    console.error(`${unused.length} unused export(s): drop them from the entry, or import them by relative path inside the package.`);
    return 1;
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
