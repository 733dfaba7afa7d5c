import type { OperatorContext } from "../ports";
import { sleepOperator } from "./basic";

function ctxLogging(lines: string[]): OperatorContext {
  return { log: (l: string) => lines.push(l), signal: new AbortController().signal } as unknown as OperatorContext;
}

test("sleep prints every tick even when the event loop is held up (late timers delay lines, never drop them)", async () => {
  const lines: string[] = [];
  // Hold the event loop for 200 ms soon after the start: one timer after another would end the
  // 0.5 s sleep with fewer than 10 ticks; a schedule from the start catches up instead.
  setTimeout(() => {
    const until = Date.now() + 200;
    while (Date.now() < until);
  }, 60);
  const out = await sleepOperator.run({ seconds: 0.5, print_every: 0.05 }, ctxLogging(lines));
  expect(lines).toEqual(Array.from({ length: 10 }, (_, i) => `tick ${i + 1}`));
  expect(out).toEqual({ slept_seconds: 0.5 });
});

test("sleep without print_every prints nothing, and a cancelled sleep rejects with the abort's reason", async () => {
  const lines: string[] = [];
  expect(await sleepOperator.run({ seconds: 0.05 }, ctxLogging(lines))).toEqual({ slept_seconds: 0.05 });
  expect(lines).toEqual([]);
  const ac = new AbortController();
  const p = sleepOperator.run({ seconds: 30, print_every: 1 }, { log: () => undefined, signal: ac.signal } as unknown as OperatorContext);
  ac.abort(new Error("cancelled by test"));
  await expect(p).rejects.toThrow("cancelled by test");
});
