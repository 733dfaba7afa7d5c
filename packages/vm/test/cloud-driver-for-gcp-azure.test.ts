import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { AzureDriver } from "../src/azure/driver";
import { cloudDriverFor } from "../src/cloud/driver-for";
import { VmInputError } from "../src/errors";
import { GcpDriver } from "../src/gcp/driver";
import { startAzureFake, type AzureFake } from "./azure-fake";
import { startGcpFake, type GcpFake } from "./gcp-fake";

// cloudDriverFor's gcp and azure cases: an inventory host and the secrets give the provider's driver,
// against the GCP fake and the Azure fake (TLS, a CA made for the run) on 127.0.0.1.
jest.setTimeout(90_000);

let gcp: GcpFake;
let az: AzureFake;
beforeAll(async () => {
  [gcp, az] = await Promise.all([startGcpFake(), startAzureFake()]);
});
afterAll(async () => {
  await Promise.all([gcp?.stop(), az?.stop()]);
});

const azureHost = (over: Record<string, string> = {}) => ({
  name: "az-test",
  provider: "azure",
  provider_settings: { subscription: az.subscription, location: az.location, resource_group: az.resourceGroup, endpoint: az.endpoint, ...over },
});
const azureSecrets = () => ({ vault_azure_tenant_id: az.tenant, vault_azure_client_id: az.clientId, vault_azure_client_secret: az.clientSecret });

describe("cloudDriverFor: gcp and azure", () => {
  it("gives the GCP driver of a gcp host with the secrets file's service-account key, and it reaches the endpoint the host names", async () => {
    const host = { name: "gc-test", provider: "gcp", provider_settings: { project: gcp.project, zone: gcp.zone, endpoint: gcp.endpoint, credentials: "secrets-file" } };
    const d = await cloudDriverFor(host, { vault_gcp_service_account_json: JSON.stringify(gcp.key) });
    expect(d).toBeInstanceOf(GcpDriver);
    expect(await d.identity()).toEqual({ provider: "gcp", project: gcp.project, zone: gcp.zone, account: gcp.key.client_email });
    expect(await d.list()).toEqual([]);
  });

  it("reads no secrets for an adc gcp host", async () => {
    const host = { name: "gc-adc", provider: "gcp", provider_settings: { project: gcp.project, zone: gcp.zone, credentials: "adc" } };
    const d = await cloudDriverFor(host, () => {
      throw new Error("the secrets were read");
    });
    expect(d.name).toBe("gcp");
  });

  it("gives the Azure driver of an azure host, its authority from the host or else from the option (AZURE_AUTHORITY_HOST)", async () => {
    expect(await cloudDriverFor(azureHost({ authority_host: az.authorityHost }), azureSecrets())).toBeInstanceOf(AzureDriver);
    expect(await cloudDriverFor(azureHost(), azureSecrets(), { azureAuthorityHost: az.authorityHost })).toBeInstanceOf(AzureDriver);
  });

  it("an azure host's driver reaches Entra ID and Resource Manager over TLS, trusting the CA through NODE_EXTRA_CA_CERTS in a process of its own", async () => {
    const script = [
      `const { cloudDriverFor } = require(${JSON.stringify(join(__dirname, "../src/cloud/driver-for.ts"))});`,
      `const [host, secrets, opts] = JSON.parse(process.argv[1]);`,
      `cloudDriverFor(host, secrets, opts).then((d) => d.identity()).then((i) => console.log(JSON.stringify(i)), (e) => { console.error(e.message); process.exit(3); });`,
    ].join("\n");
    const arg = JSON.stringify([azureHost(), azureSecrets(), { azureAuthorityHost: az.authorityHost }]);
    const { stdout } = await promisify(execFile)(process.execPath, ["--require", "tsx/cjs", "-e", script, arg], {
      cwd: join(__dirname, ".."),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", NODE_EXTRA_CA_CERTS: az.ca.caFile },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ provider: "azure", subscription: az.subscription, resource_group: az.resourceGroup, client_id: az.clientId });
    expect(az.requests.some((r) => r.path.includes("/oauth2/v2.0/token"))).toBe(true);
  });

  it("names what a gcp or azure host lacks, never a value", async () => {
    const err = (p: Promise<unknown>) =>
      p.then(
        () => new Error("it resolved"),
        (e: unknown) => e as Error,
      );
    const g = await err(cloudDriverFor({ name: "g", provider: "gcp", provider_settings: { project: "p-12345", zone: "europe-west1-b" } }, {}));
    expect(g).toBeInstanceOf(VmInputError);
    expect(g.message).toMatch(/the secrets file has no vault_gcp_service_account_json/);
    expect(
      (await err(cloudDriverFor({ name: "g", provider: "gcp", provider_settings: { project: "p-12345", zone: "z" } }, { vault_gcp_service_account_json: "{not json" }))).message,
    ).toMatch(/is not JSON/);
    expect((await err(cloudDriverFor({ name: "a", provider: "azure", provider_settings: { location: "westeurope" } }, azureSecrets()))).message).toMatch(
      /needs subscription, location and resource_group/,
    );
    const a = await err(cloudDriverFor(azureHost(), { vault_azure_tenant_id: az.tenant }));
    expect(a.message).toMatch(/the secrets file has no vault_azure_client_id, vault_azure_client_secret/);
    expect(a.message).not.toContain(az.tenant);
  });
});
