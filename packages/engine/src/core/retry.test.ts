import { decideFailure } from "./retry";

const fixed = { retry_delay_ms: 5000, retry_exponential_backoff: false, max_retry_delay_ms: 60_000 };
const doubling = { retry_delay_ms: 1000, retry_exponential_backoff: true, max_retry_delay_ms: 3000 };
const NOW = new Date("2026-01-01T00:00:00.000Z");

describe("decideFailure (the retry policy of a failed try)", () => {
  it("retries a retryable error while tries are left, after the task's fixed delay", () => {
    expect(decideFailure("boom", true, fixed, 1, 2, NOW)).toEqual({ state: "up_for_retry", error: "boom", delayMs: 5000, nextRetryAt: new Date("2026-01-01T00:00:05.000Z") });
  });

  it("fails the last try even when the error is retryable", () => {
    expect(decideFailure("boom", true, fixed, 3, 2, NOW)).toEqual({ state: "failed", error: "boom" });
  });

  it("fails a non-retryable error at once, whatever tries are left", () => {
    expect(decideFailure("bad args", false, fixed, 1, 5, NOW)).toEqual({ state: "failed", error: "bad args" });
  });

  it("doubles the delay per try up to the task's cap", () => {
    const delays = [1, 2, 3, 4].map((t) => decideFailure("x", true, doubling, t, 10, NOW)).map((d) => (d.state === "up_for_retry" ? d.delayMs : -1));
    expect(delays).toEqual([1000, 2000, 3000, 3000]);
  });
});
