import { z } from "zod";
import { BadRequestError } from "@svc/errors";
import { openApiSchema, parseInput } from "./index";

describe("parseInput", () => {
  const Body = z.strictObject({ name: z.string().min(1), size: z.number().int().optional() });

  test("returns the parsed value", () => {
    expect(parseInput(Body, { name: "a", size: 2 }, "body")).toEqual({ name: "a", size: 2 });
  });

  test("a failure is a 400 naming every bad field, an unknown key by its name, the whole input by where it came from", () => {
    const err = (() => {
      try {
        parseInput(Body, { name: "", size: 1.5, colour: "red" }, "body");
      } catch (e) {
        return e;
      }
    })() as BadRequestError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.details).toMatchObject({ field: "name", fields: [{ field: "name" }, { field: "size" }, { field: "colour" }] });
    expect(err.message).toMatch(/^name: .+; size: .+; colour: /);
    expect(() => parseInput(Body, "nope", "query")).toThrow(/^query: /);
  });
});

describe("openApiSchema", () => {
  test("is OpenAPI 3.0 without the ±2^53 bounds of plain ints, per input or output", () => {
    const s = z.object({ n: z.number().int(), d: z.string().default("x") });
    expect(openApiSchema(s, "output")).toMatchObject({ type: "object", properties: { n: { type: "integer" } }, required: ["n", "d"] });
    expect(openApiSchema(s, "output")).not.toHaveProperty("properties.n.minimum");
    expect(openApiSchema(s, "input")).toMatchObject({ required: ["n"] });
  });
});
