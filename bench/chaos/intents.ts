/** Post `n` intents at once (offline router, no execution); the flow ids of those accepted. */
export async function postIntents(apiUrl: string, n: number, timeoutMs: number): Promise<{ flowIds: string[]; failed: number }> {
  const res = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      try {
        const r = await fetch(`${apiUrl}/orchestrator/intent`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ intent: `create a vm called chaos${String(i).padStart(2, "0")}`, auto_execute: false }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await r.json().catch(() => ({}))) as { flow_id?: string };
        return r.status < 500 && body.flow_id ? body.flow_id : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  const flowIds = res.filter((x): x is string => !!x);
  return { flowIds, failed: n - flowIds.length };
}
