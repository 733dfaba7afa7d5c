// What each workspace package exports through its `exports` map, and which of those names the
// rest of the workspace imports. A package's own files do not count as users of its API.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One name an entry file exports, with where it is declared (for the report). */
export interface ExportedName {
  name: string;
  file: string;
  line: number;
}

/** One entry of a package's `exports` map: `@svc/engine/runtime` is package @svc/engine, subpath ./runtime. */
export interface PackageEntry {
  pkg: string;
  dir: string;
  subpath: string;
  file: string;
  names: ExportedName[];
}

export interface ExportUsage {
  entry: PackageEntry;
  used: Set<string>;
}

const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|cjs|mjs)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", "coverage"]);
/** Every name of a module counts as used (a namespace passed whole, `export *`, a bare dynamic import). */
const ALL = "*";

/** The workspace's package directories, from pnpm-workspace.yaml's `packages:` globs (`dir/*` or `dir`). */
export function workspaceDirs(root: string): string[] {
  const text = readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8");
  const block = /^packages:\s*\n((?:[ \t]+-.*\n?)+)/m.exec(text)?.[1] ?? "";
  const globs = [...block.matchAll(/-\s*["']?([^"'\s#]+)["']?/g)].map((m) => m[1]!);
  const dirs: string[] = [];
  for (const glob of globs) {
    if (!glob.endsWith("/*")) {
      dirs.push(path.join(root, glob));
      continue;
    }
    const parent = path.join(root, glob.slice(0, -2));
    if (!existsSync(parent)) continue;
    for (const d of readdirSync(parent).sort()) dirs.push(path.join(parent, d));
  }
  return dirs.filter((d) => existsSync(path.join(d, "package.json")));
}

function entryTarget(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    return entryTarget(v.types ?? v.import ?? v.require ?? v.default);
  }
  return undefined;
}

/** The entries of every package that has an `exports` map, with the names each entry exports. */
export function packageEntries(root: string): PackageEntry[] {
  const entries: PackageEntry[] = [];
  for (const dir of workspaceDirs(root)) {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; exports?: unknown };
    if (!manifest.name || !manifest.exports) continue;
    const map = typeof manifest.exports === "string" ? { ".": manifest.exports } : (manifest.exports as Record<string, unknown>);
    for (const [subpath, value] of Object.entries(map)) {
      const target = entryTarget(value);
      if (!target || !/\.(ts|mts|cts)$/.test(target)) continue;
      const file = path.join(dir, target);
      entries.push({ pkg: manifest.name, dir, subpath, file, names: exportsOf(file, new Set()) });
    }
  }
  return entries;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

function resolveRelative(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, "index.ts"), base].find((f) => existsSync(f) && statSync(f).isFile());
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function isDefault(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

/** The names a module exports, read from its syntax; `export * from "./x"` is followed into x. */
export function exportsOf(file: string, seen: Set<string>): ExportedName[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const sf = parse(file);
  const out: ExportedName[] = [];
  const add = (name: string, node: ts.Node): void => {
    out.push({ name, file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (st.exportClause && ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) add(el.name.text, el);
      } else if (st.exportClause && ts.isNamespaceExport(st.exportClause)) {
        add(st.exportClause.name.text, st);
      } else if (st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        const target = resolveRelative(file, st.moduleSpecifier.text);
        if (target) out.push(...exportsOf(target, seen));
      }
    } else if (ts.isExportAssignment(st)) {
      add("default", st);
    } else if (hasExportModifier(st)) {
      if (isDefault(st)) add("default", st);
      else if (ts.isVariableStatement(st)) {
        for (const decl of st.declarationList.declarations) for (const id of bindingNames(decl.name)) add(id.text, id);
      } else {
        const name = (st as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) add(name.text, st);
      }
    }
  }
  return out;
}

function bindingNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  return name.elements.flatMap((el) => (ts.isOmittedExpression(el) ? [] : bindingNames(el.name)));
}

/** Every source file under root, outside node_modules, build output and dot-directories. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith(".") || SKIP_DIRS.has(name)) continue;
      const full = path.join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (SOURCE_EXT.test(name) && !name.endsWith(".d.ts")) out.push(full);
    }
  };
  walk(root);
  return out;
}

/** The names one file imports from each module specifier (`*` when the whole module is used). */
export function importsOf(file: string, text = readFileSync(file, "utf8")): Map<string, Set<string>> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const uses = new Map<string, Set<string>>();
  const use = (spec: string, name: string): void => {
    let set = uses.get(spec);
    if (!set) uses.set(spec, (set = new Set()));
    set.add(name);
  };
  const namespaces = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (clause?.name) use(spec, "default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) use(spec, (el.propertyName ?? el.name).text);
      else if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, spec);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      if (node.exportClause && ts.isNamedExports(node.exportClause)) for (const el of node.exportClause.elements) use(spec, (el.propertyName ?? el.name).text);
      else use(spec, ALL);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      namespaces.set(node.name.text, node.moduleReference.expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const q = node.qualifier;
      use(node.argument.literal.text, q ? leftmost(q) : ALL);
    } else if (ts.isCallExpression(node) && isModuleCall(node)) {
      const spec = (node.arguments[0] as ts.StringLiteral).text;
      for (const name of namesTakenFrom(node)) use(spec, name);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (namespaces.size > 0) namespaceUses(sf, namespaces, use);
  return uses;
}

function leftmost(q: ts.EntityName): string {
  return ts.isIdentifier(q) ? q.text : leftmost(q.left);
}

function isModuleCall(node: ts.CallExpression): boolean {
  const arg = node.arguments[0];
  if (node.arguments.length !== 1 || !arg || !ts.isStringLiteral(arg)) return false;
  return node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require");
}

/** `const { a, b } = require(x)`, `(await import(x)).a`, `require(x).a`; anything else takes the whole module. */
function namesTakenFrom(call: ts.CallExpression): string[] {
  let node: ts.Node = call;
  while (ts.isAwaitExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return [parent.name.text];
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
    const names = parent.name.elements.map((el) => (el.dotDotDotToken ? ALL : ((el.propertyName ?? el.name) as ts.Identifier).text));
    return names.length > 0 ? names : [ALL];
  }
  return [ALL];
}

/** `import * as m from x`: the names read as `m.name` (values or types); `m` used any other way takes them all. */
function namespaceUses(sf: ts.SourceFile, namespaces: Map<string, string>, use: (spec: string, name: string) => void): void {
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && namespaces.has(node.text)) {
      const spec = namespaces.get(node.text)!;
      const p = node.parent;
      if (ts.isPropertyAccessExpression(p) && p.expression === node) use(spec, p.name.text);
      else if (ts.isQualifiedName(p) && p.left === node) use(spec, p.right.text);
      else if (!(ts.isNamespaceImport(p) || ts.isImportEqualsDeclaration(p))) use(spec, ALL);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** For every entry, the names that files outside its package import from it. */
export function exportUsage(root: string): ExportUsage[] {
  const entries = packageEntries(root);
  const bySpec = new Map<string, ExportUsage>();
  const usages = entries.map((entry) => {
    const usage = { entry, used: new Set<string>() };
    bySpec.set(entry.subpath === "." ? entry.pkg : `${entry.pkg}/${entry.subpath.slice(2)}`, usage);
    return usage;
  });
  const byFile = new Map(usages.map((u) => [u.entry.file, u]));
  const names = [...new Set(entries.map((e) => e.pkg))];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, "utf8");
    // A package's name in the text, or a relative path that may reach into another package's entry.
    if (!names.some((n) => text.includes(n)) && !text.includes("../")) continue;
    for (const [spec, used] of importsOf(file, text)) {
      const target = spec.startsWith(".") ? resolveRelative(file, spec) : undefined;
      const usage = target ? byFile.get(target) : bySpec.get(spec);
      if (!usage || isInside(file, usage.entry.dir)) continue;
      if (used.has(ALL)) for (const n of usage.entry.names) usage.used.add(n.name);
      else for (const n of used) usage.used.add(n);
    }
  }
  return usages;
}

function isInside(file: string, dir: string): boolean {
  return file.startsWith(dir + path.sep);
}

/** The exported names nothing outside their package imports. */
export function unusedExports(usages: ExportUsage[]): Array<ExportedName & { spec: string; pkgDir: string }> {
  return usages.flatMap(({ entry, used }) =>
    entry.names.filter((n) => !used.has(n.name)).map((n) => ({ ...n, spec: entry.subpath === "." ? entry.pkg : `${entry.pkg}/${entry.subpath.slice(2)}`, pkgDir: entry.dir })),
  );
}
