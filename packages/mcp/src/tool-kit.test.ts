import { z } from "zod";
import { ParamsInvalidError } from "@svc/errors";
import { tailLines, truncateText } from "./text-limits";
import { annotationsOf } from "./tool-kit";
import { describeToolError, ToolInputError } from "./tool-error";

test("annotations follow the tier: reads are read-only and idempotent, writes say they are not read-only, destructive is flagged", () => {
  expect(annotationsOf({ tier: "read", title: "r" })).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  expect(annotationsOf({ tier: "write", title: "w" })).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  expect(annotationsOf({ tier: "write", title: "w" })).not.toHaveProperty("idempotentHint");
  expect(annotationsOf({ tier: "destructive", idempotent: true, title: "d" })).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
});

test("tool error texts name the field; unexpected errors say only their kind", () => {
  expect(describeToolError(new ParamsInvalidError("bad", [{ field: "vm_name", message: "must match pattern" }])).text).toBe("invalid conf: conf.vm_name: must match pattern");
  expect(describeToolError(new ToolInputError("already used", "idempotency_key")).text).toBe("idempotency_key: already used");
  const zodErr = z.object({ limit: z.number().max(5) }).safeParse({ limit: 9 }).error;
  expect(describeToolError(zodErr).text).toMatch(/^limit: /);
  const internal = describeToolError(new Error("connect ECONNREFUSED postgres://svc:secret@db"));
  expect(internal).toEqual({ text: "internal error (Error); the server log has the details", expected: false });
});

test("truncateText keeps the end within the byte budget without splitting a character; tailLines keeps the last lines", () => {
  expect(truncateText("abc", 10)).toEqual({ text: "abc", truncated: false });
  const cut = truncateText(`${"é".repeat(10)}end`, 6);
  expect(cut.truncated).toBe(true);
  expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(6);
  expect(cut.text.endsWith("end")).toBe(true);
  expect(cut.text).not.toContain("\uFFFD");
  expect(tailLines(["a", "b", "c"], 2)).toEqual(["b", "c"]);
  expect(tailLines(["a"], undefined)).toEqual(["a"]);
});
