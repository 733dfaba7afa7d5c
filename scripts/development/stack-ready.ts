// Waits until the stack answers healthy, then tells the newcomer where it is and what to try.
import type { SvcConfig } from "@svc/config";

async function healthy(url: string, ok: (body: Record<string, unknown>) => boolean): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return r.ok && ok((await r.json()) as Record<string, unknown>);
  } catch {
    return false;
  }
}

const statusOf = (v: unknown) => (v && typeof v === "object" ? (v as { status?: unknown }).status : undefined);

/** Polls both front doors until healthy (or `timeoutMs`); returns the seconds it took, or null. */
export async function waitForStack(config: SvcConfig, startedAt: number, timeoutMs = 120_000): Promise<number | null> {
  const host = "127.0.0.1";
  const assistant = `http://${host}:${config.http.assistantPort}/health`;
  const engine = `http://${host}:${config.http.webUiPort}/api/v1/health`;
  while (Date.now() - startedAt < timeoutMs) {
    const [a, e] = await Promise.all([
      healthy(assistant, (b) => b.status === "ok" || b.status === "healthy"),
      // The DAG processor too: before its first pass a fresh database has no workflow to route an intent to.
      healthy(engine, (b) => statusOf(b.metadatabase) === "healthy" && statusOf(b.scheduler) === "healthy" && statusOf(b.dag_processor) === "healthy"),
    ]);
    if (a && e) return Math.round((Date.now() - startedAt) / 1000);
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}

/** The lines printed once the stack is healthy. */
export function readyBanner(config: SvcConfig, seconds: number): string {
  const a = `http://127.0.0.1:${config.http.assistantPort}`;
  const w = `http://127.0.0.1:${config.http.webUiPort}`;
  const body = JSON.stringify({ intent: "create a vm called web01", auto_approve: true, auto_execute: true });
  return [
    "",
    `svc is up and healthy (${seconds} s):`,
    `  AI assistant   ${a}   (POST /orchestrator/intent, GET /docs)`,
    `  Workflow UI    ${w}   (REST API under /api/v1)`,
    "",
    "Try it: in another terminal, run",
    "  pnpm demo",
    'which says "create a vm called demo01" to the assistant and follows the VM being made. Or by hand:',
    `  curl -s ${a}/orchestrator/intent -H 'Content-Type: application/json' -d '${body}'`,
    "",
  ].join("\n");
}
