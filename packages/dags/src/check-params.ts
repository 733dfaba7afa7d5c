import { walkStrings } from "./check-templates";
import { compileUncached } from "./params-ajv";
import type { ProblemSink, RawDag } from "./raw-dag";
import { didYouMean } from "./suggest";
import { formatPath } from "./template/ast";
import { renderArgs, setOwn } from "./template/render";
import { templateReferences } from "./template/references";
import type { ParamSchema } from "./types";

/** Params after load: settings templates in defaults resolved, and the names a run must supply. */
export interface CheckedParams {
  params: Record<string, ParamSchema>;
  required: string[];
}

/**
 * Resolve `{{ settings.<key> }}` in param defaults, compile each param schema with Ajv, and check
 * each default against its own schema.
 */
export function checkParams(dag: RawDag, settings: Record<string, string> | undefined, sink: ProblemSink): CheckedParams {
  const settingsData: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings ?? {})) setOwn(settingsData, k, v);
  const params: Record<string, ParamSchema> = {};
  const required: string[] = [];
  for (const [name, raw] of Object.entries(dag.params)) {
    const schema: ParamSchema = { ...raw };
    const hasDefault = Object.prototype.hasOwnProperty.call(raw, "default");
    if (!hasDefault) required.push(name);
    else if (!resolveDefault(name, schema, settingsData, sink)) {
      setOwn(params, name, schema);
      continue;
    }
    setOwn(params, name, schema);
    let validate;
    try {
      // Wrapped in an object schema: Ajv (strict, useDefaults) rejects `default` at a schema root.
      validate = compileUncached({ type: "object", properties: { [name]: schema } });
    } catch (e) {
      sink.at(["params", name], `params.${name}: invalid JSON Schema: ${cleanAjvMessage((e as Error).message, name)}`);
      continue;
    }
    if (hasDefault && !validate({ [name]: structuredClone(schema.default) })) {
      const why = (validate.errors ?? []).map((err) => `${err.instancePath.split("/").slice(2).join(".")} ${err.message ?? "is invalid"}`.trim()).join("; ");
      sink.at(["params", name, "default"], `params.${name}.default: ${JSON.stringify(schema.default)} does not match the param's schema: ${why}`);
    }
  }
  return { params, required };
}

/** Replace settings templates inside `schema.default`; false when a reference is bad (problem reported). */
function resolveDefault(name: string, schema: ParamSchema, settings: Record<string, unknown>, sink: ProblemSink): boolean {
  let ok = true;
  const known = Object.keys(settings).sort();
  walkStrings({ default: schema.default }, ["params", name], (text, path) => {
    const fail = (msg: string) => ((ok = false), sink.at(path, `params.${name}.default: ${msg}`));
    let refs;
    try {
      refs = templateReferences(text);
    } catch (e) {
      return fail((e as Error).message);
    }
    for (const { path: ref, dynamic } of refs) {
      if (ref[0] !== "settings" || dynamic || typeof ref[1] !== "string" || ref.length > 2) {
        return fail(`'${formatPath(ref)}': param defaults can only use {{ settings.<key> }}`);
      }
      if (!known.includes(ref[1])) {
        return fail(`unknown setting '${ref[1]}'${didYouMean(ref[1], known)} (known: ${known.join(", ") || "none"})`);
      }
    }
  });
  if (!ok) return false;
  try {
    schema.default = renderArgs({ default: schema.default }, { settings }).default;
  } catch (e) {
    sink.at(["params", name, "default"], `params.${name}.default: ${(e as Error).message}`);
    return false;
  }
  return true;
}

/** Ajv's compile error without the wrapper schema's path (`data/properties/<name>/`). */
function cleanAjvMessage(msg: string, name: string): string {
  return msg
    .replace(/^schema is invalid: /, "")
    .replace(/^strict mode: /, "")
    .split(`data/properties/${name}/`)
    .join("")
    .split(`data/properties/${name}`)
    .join("schema")
    .slice(0, 500);
}
