/** How a tool server is reached: stdio (the default, for local clients) or Streamable HTTP. */
export type TransportChoice = { kind: "stdio" } | { kind: "http"; port: number | undefined };

/** Parse `--stdio` | `--http [--port N]`; throws a message naming the bad argument. */
export function parseTransportArgs(argv: readonly string[]): TransportChoice {
  let kind: "stdio" | "http" = "stdio";
  let port: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--stdio") kind = "stdio";
    else if (a === "--http") kind = "http";
    else if (a === "--port" || a?.startsWith("--port=")) {
      const raw = a === "--port" ? argv[++i] : a.slice("--port=".length);
      const n = Number(raw);
      if (!raw || !Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port: expected an integer 0-65535, got '${String(raw).slice(0, 20)}'`);
      port = n;
    } else throw new Error(`unknown argument '${String(a).slice(0, 40)}' (use --stdio, or --http [--port N])`);
  }
  if (kind === "stdio" && port !== undefined) throw new Error("--port only applies with --http");
  return kind === "http" ? { kind, port } : { kind };
}
