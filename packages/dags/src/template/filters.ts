import { createHash } from "node:crypto";
import { TemplateError } from "./errors";
import { Missing, isPlainObject, toJson, toText, typeName } from "./values";

interface FilterSpec {
  minArgs: number;
  maxArgs: number;
  /** Receives a Missing input only when `acceptsMissing`; every other filter sees real values. */
  acceptsMissing?: boolean;
  apply(input: unknown, args: unknown[]): unknown;
}

const needString = (name: string, v: unknown): string => {
  if (typeof v !== "string") throw new TemplateError(`filter '${name}' needs a string, got ${typeName(v)}`);
  return v;
};

/** The fixed set of filters; a template can call nothing else. */
export const FILTERS: Readonly<Record<string, FilterSpec>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, FilterSpec>, {
    default: {
      minArgs: 0,
      maxArgs: 1,
      acceptsMissing: true,
      apply: (v: unknown, [fallback]: unknown[]) => (v instanceof Missing || v === null ? (fallback ?? "") : v),
    },
    lower: { minArgs: 0, maxArgs: 0, apply: (v: unknown) => needString("lower", v).toLowerCase() },
    upper: { minArgs: 0, maxArgs: 0, apply: (v: unknown) => needString("upper", v).toUpperCase() },
    trim: { minArgs: 0, maxArgs: 0, apply: (v: unknown) => needString("trim", v).trim() },
    tojson: { minArgs: 0, maxArgs: 0, apply: (v: unknown) => toJson(v) },
    string: { minArgs: 0, maxArgs: 0, apply: (v: unknown) => toText(v) },
    join: {
      minArgs: 0,
      maxArgs: 1,
      apply: (v: unknown, [sep]: unknown[]) => {
        if (!Array.isArray(v)) throw new TemplateError(`filter 'join' needs a list, got ${typeName(v)}`);
        return v.map(toText).join(sep === undefined ? "" : needString("join", sep));
      },
    },
    /**
     * A MAC address that is the same for the same input on every run: '52:54:00:' and the first six
     * hex digits of md5(input + suffix), as Ansible's `'52:54:00:' ~ (x | hash('md5'))[0:6]` in pairs.
     */
    stable_mac: {
      minArgs: 0,
      maxArgs: 1,
      apply: (v: unknown, [suffix]: unknown[]) => {
        const text = needString("stable_mac", v) + (suffix === undefined ? "" : needString("stable_mac", suffix));
        const h = createHash("md5").update(text, "utf8").digest("hex");
        return `52:54:00:${h.slice(0, 2)}:${h.slice(2, 4)}:${h.slice(4, 6)}`;
      },
    },
    length: {
      minArgs: 0,
      maxArgs: 0,
      apply: (v: unknown) => {
        if (typeof v === "string" || Array.isArray(v)) return v.length;
        if (isPlainObject(v)) return Object.keys(v).length;
        throw new TemplateError(`filter 'length' needs a string, list or object, got ${typeName(v)}`);
      },
    },
  }),
);
