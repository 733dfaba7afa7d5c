/**
 * StackStorm-style action aliases: "create a vm called {{vm_name}}".
 * Syntax: words; (a|b c) one of; [a|an] optional; {{name}} one token captured as a param;
 * {{*}} one to six arbitrary tokens. Aliases match whole tokens anywhere in the request.
 */
export interface AliasDefinition {
  dag_id: string;
  formats: string[];
  /** Params an alias implies (e.g. action=delete). */
  params?: Record<string, string>;
}

/** A compiled alias hit. */
export interface AliasMatch {
  dag_id: string;
  format: string;
  params: Record<string, string>;
}

const VM_NOUN = "(vm|virtual machine|virtual server|server|instance|box|guest)";
const CREATE = "(create|make|spin up|provision|launch|build|deploy|add|bring up|stand up|set up|start)";
const DELETE = "(delete|remove|destroy|decommission|tear down|get rid of|deprovision|uninstall)";

/** Aliases for the shipped catalogue; exact phrasings that need no scoring. */
export const ALIASES: AliasDefinition[] = [
  {
    dag_id: "vm_deployment",
    params: { action: "create" },
    formats: [`${CREATE} [me] [a|an] [new] ${VM_NOUN} (called|named) {{vm_name}}`, `new ${VM_NOUN} [called|named] {{vm_name}}`],
  },
  { dag_id: "vm_deployment", params: { action: "delete" }, formats: [`${DELETE} [the] ${VM_NOUN} [called|named] {{vm_name}}`] },
  {
    dag_id: "infrastructure_health_check",
    formats: ["(is|are) {{*}} (ok|okay|healthy|fine|working|alright|up|running|reachable)", "[run] [a|an|the] [infra|infrastructure] health check", "how (is|are) {{*}} doing"],
  },
  { dag_id: "cluster_initial_deployment", formats: [`${CREATE} [a|an|the] [new] [openshift|ocp] cluster (called|named) {{cluster_name}}`] },
];

interface CompiledAlias {
  dag_id: string;
  format: string;
  regex: RegExp;
  names: string[];
  params: Record<string, string>;
}

const NAME_TOKEN = "([a-z][a-z0-9-]*)";

function compileFormat(format: string): { source: string; names: string[] } {
  const names: string[] = [];
  // Placeholders become sentinels first so that their regex text is not rewritten as alias syntax.
  const source = format
    .replace(/\{\{\s*\*\s*\}\}/g, "\u0002")
    .replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => {
      names.push(name);
      return "\u0001";
    })
    .replace(/\[([^\]]+)\]\s?/g, (_, alts: string) => `(?:(?:${alts}) )?`)
    .replace(/\((?!\?)([^)]+)\)/g, (_, alts: string) => `(?:${alts})`)
    // eslint-disable-next-line no-control-regex -- \u0001 and \u0002 are placeholder marks this pass swaps back
    .replace(/\u0002/g, "(?:\\S+ ){0,5}\\S+")
    // eslint-disable-next-line no-control-regex -- see above
    .replace(/\u0001/g, NAME_TOKEN);
  return { source, names };
}

/** Compiles aliases into a matcher over a request's token text. */
export function createAliasMatcher(aliases: readonly AliasDefinition[]): (text: string) => AliasMatch[] {
  const compiled: CompiledAlias[] = aliases.flatMap((a) =>
    a.formats.map((format) => {
      const { source, names } = compileFormat(format);
      return { dag_id: a.dag_id, format, regex: new RegExp(`(?:^| )${source}(?= |$)`), names, params: a.params ?? {} };
    }),
  );
  return (text) => {
    const hits: AliasMatch[] = [];
    for (const c of compiled) {
      const m = c.regex.exec(text);
      if (!m) continue;
      // Capture groups for names are the only capturing groups in a compiled format.
      const params: Record<string, string> = { ...c.params };
      c.names.forEach((name, i) => {
        const v = m[i + 1];
        if (v) params[name] = v;
      });
      hits.push({ dag_id: c.dag_id, format: c.format, params });
    }
    return hits;
  };
}
