// The subset of JSON Schema that DAG params use, for inline messages before anything is sent.
// The API validates again with the full validator; its messages are shown in the same places.
"use strict";
window.svcSchema = (function () {
  const typeOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);
  const matches = (t, v) => t === typeOf(v) || (t === "number" && typeof v === "number");
  const eq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  /** The first problem with `v` against `s`, as a message, or null. */
  function check(v, s) {
    if (!s || typeof s !== "object") return null;
    // Values still holding a setting template are resolved (and checked) by the server.
    if (typeof v === "string" && v.includes("{{")) return null;
    const types = s.type === undefined ? [] : [].concat(s.type);
    if (types.length && !types.some((t) => matches(t, v))) return "must be " + types.join(" or ");
    if (s.enum && !s.enum.some((e) => eq(e, v))) return "must be one of: " + s.enum.map((e) => JSON.stringify(e)).join(", ");
    if ("const" in s && !eq(s.const, v)) return "must be " + JSON.stringify(s.const);
    if (typeof v === "string") {
      if (s.minLength !== undefined && v.length < s.minLength) return "must have at least " + s.minLength + " character(s)";
      if (s.maxLength !== undefined && v.length > s.maxLength) return "must have at most " + s.maxLength + " characters";
      if (s.pattern && !new RegExp(s.pattern, "u").test(v)) return 'must match pattern "' + s.pattern + '"';
    }
    if (typeof v === "number") {
      if (s.minimum !== undefined && v < s.minimum) return "must be >= " + s.minimum;
      if (s.maximum !== undefined && v > s.maximum) return "must be <= " + s.maximum;
      if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return "must be > " + s.exclusiveMinimum;
      if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) return "must be < " + s.exclusiveMaximum;
      if (s.multipleOf && Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9) return "must be a multiple of " + s.multipleOf;
    }
    if (Array.isArray(v)) {
      if (s.minItems !== undefined && v.length < s.minItems) return "must have at least " + s.minItems + " item(s)";
      if (s.maxItems !== undefined && v.length > s.maxItems) return "must have at most " + s.maxItems + " items";
      if (s.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) return "must not have duplicate items";
      for (let i = 0; i < v.length; i++) {
        const e = check(v[i], s.items);
        if (e) return "item " + (i + 1) + " " + e;
      }
    }
    if (v && typeof v === "object" && !Array.isArray(v) && s.properties) {
      for (const r of s.required || []) if (!(r in v)) return "must have property " + r;
      for (const [k, sub] of Object.entries(s.properties)) if (k in v) {
        const e = check(v[k], sub);
        if (e) return k + " " + e;
      }
    }
    if (s.not && check(v, s.not) === null) return "is not allowed";
    for (const sub of s.allOf || []) {
      const e = check(v, sub);
      if (e) return e;
    }
    if (s.anyOf && !s.anyOf.some((sub) => check(v, sub) === null)) return "does not match any allowed form";
    if (s.oneOf && s.oneOf.filter((sub) => check(v, sub) === null).length !== 1) return "must match exactly one allowed form";
    return null;
  }
  return { check };
})();
