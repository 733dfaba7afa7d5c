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
export const FILTERS: Readonly<Record<string, FilterSpec>> = Object.freeze(Object.assign(Object.create(null) as Record<string, FilterSpec>, {
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
  length: {
    minArgs: 0,
    maxArgs: 0,
    apply: (v: unknown) => {
      if (typeof v === "string" || Array.isArray(v)) return v.length;
      if (isPlainObject(v)) return Object.keys(v).length;
      throw new TemplateError(`filter 'length' needs a string, list or object, got ${typeName(v)}`);
    },
  },
}));
