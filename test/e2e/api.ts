// The assistant's HTTP API as a client uses it: send an intent, poll the flow until it settles.

export type Json = Record<string, unknown>;

export async function post(url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}

export async function get(url: string): Promise<Json> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`GET ${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as Json;
}

const SETTLED = new Set(["completed", "failed", "rejected", "cancelled", "needs_input"]);

/** Poll GET /orchestrator/flows/:id until the flow settles; returns the last view. */
export async function settle(base: string, flowId: string, timeoutMs: number): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const flow = await get(`${base}/orchestrator/flows/${flowId}`);
    if (SETTLED.has(String(flow.status))) return flow;
    if (Date.now() > deadline) throw new Error(`flow ${flowId} still ${String(flow.status)} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Send a sentence with auto approve and execute, as the README shows. */
export function say(base: string, intent: string): Promise<{ status: number; body: Json }> {
  return post(`${base}/orchestrator/intent`, { intent, auto_approve: true, auto_execute: true });
}
