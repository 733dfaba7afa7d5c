// Print the Kubernetes objects of an svc deployment, validated against the API schemas first.
// Usage: tsx deploy/k8s/render.ts [values.json] | kubectl apply -f -
import { readFileSync } from "node:fs";
import { renderManifests, toYamlStream, validateManifests } from "./manifests";

const file = process.argv[2];
const values: unknown = file ? JSON.parse(readFileSync(file, "utf8")) : {};
const objects = renderManifests(values);
validateManifests(objects);
process.stdout.write(toYamlStream(objects));
