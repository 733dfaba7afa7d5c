// The lab's members, on the lab the lab e2e test built (one lab for the whole file: each lab costs
// many minutes under TCG). A VM made with vm_deployment `lab` (its join's worker killed -9), a user
// added by identity_deployment add_user, then proven from the host through forwarded ports only:
// dig, kinit with the password from the host-side file, ssh with GSSAPI alone as that user, curl
// to the lab registry on the member without -k; then the member deleted (NXDOMAIN, no computer
// account by LDAPS) and the user removed (kinit fails).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { waitFor } from "@svc/testing";
import { baseDn, digShort, digStatus, krb5Env, ldapsSearch, runClient } from "./lab-clients";
import { forwardedPort, killWorker, type ProductStack, type RunOutcome } from "./product-stack";
import { sshAsync, THROWAWAY_HOST, type SshResult } from "./router-lab";

/** What the member tests take from the lab test (read when the tests run, after its beforeAll). */
export interface SharedLab {
  label: string;
  domain: string;
  prefix: string;
  adminPassword: string;
  stack(): ProductStack;
  /** The lab's child run of a product DAG (identity_deployment, registry_deployment, ...). */
  child(dagId: string): RunOutcome;
  /** A private folder of the test for client files. */
  work(): string;
  /** The router's DHCP leases (dnsmasq's lease file). */
  leases(): Promise<string>;
}

const USER = "alice";
const GROUP = "developers";
const DAG = "vm_deployment";

/** The first result line ansible printed for `task` (ok:, changed:, skipping:, fatal:) among `lines`. */
function taskResult(lines: string[], task: RegExp): string | undefined {
  const at = lines.findIndex((l) => task.test(l));
  return at < 0 ? undefined : lines.slice(at + 1).find((l) => /^(ok|changed|skipping|fatal|failed):/.test(l));
}

export function labMemberTests(lab: SharedLab): void {
  const member = `${lab.label}-web`;
  const fqdn = `${member}.${lab.domain}`;
  const realm = lab.domain.toUpperCase();
  const conf = { vm_name: member, lab: lab.label, image: "debian12", memory_mb: 512, cpus: 1, disk_gb: 4, ssh_wait_timeout: 1200 };
  const userConf = { lab: lab.label, username: USER };
  let created: RunOutcome;
  let userAdded: RunOutcome;
  let password = "";
  const timings: string[] = [];
  const timed = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    try {
      return await f();
    } finally {
      timings.push(`${what} ${Math.round((Date.now() - t0) / 1000)} s`);
      process.stdout.write(`[lab members] ${timings.at(-1)}\n`);
    }
  };
  const idm = () => lab.child("identity_deployment");
  const dns = (name: string, type = "A") => digShort(forwardedPort(idm(), "tcp", 53), name, type);
  const userEnv = () => krb5Env(lab.work(), realm, forwardedPort(idm(), "tcp", 88), lab.domain, `${USER}.ccache`);
  const kinitUser = (pw: string) => runClient("kinit", [`${USER}@${realm}`], { input: `${pw}\n`, env: userEnv() });
  const passwordFile = () => path.join(lab.stack().inventoryDir, "identity", `${lab.label}-idm`, "users", `${USER}.password`);
  const computerAccounts = () => {
    const pw = path.join(lab.work(), "admin-pass");
    writeFileSync(pw, lab.adminPassword, { mode: 0o600 });
    const r = ldapsSearch(forwardedPort(idm(), "tcp", 636), `admin@${realm}`, pw, baseDn(lab.domain), `(sAMAccountName=${member.toUpperCase()}$)`, "dn");
    expect(r.stderr).toBe("");
    return r.stdout.split("\n").filter((l) => l.startsWith("dn: "));
  };
  const memberVms = () =>
    spawnSync("virsh", ["-c", "qemu:///system", "list", "--all", "--name"], { encoding: "utf8" })
      .stdout.split("\n")
      .filter((n) => n === member);
  const asRoot = (cmd: string) => sshAsync(["-i", lab.stack().scratch.keyPath, ...THROWAWAY_HOST, "-p", String(forwardedPort(created, "tcp", 22)), "root@127.0.0.1", cmd], 180_000);

  afterAll(() => process.stdout.write(`[lab members] the member tests took: ${timings.join(", ")}\n`));

  test("vm_deployment with lab makes one member, joined once, although the worker running its join was killed (-9); the lab DNS answers with its address on the lab network", async () => {
    const { db } = lab.stack();
    let killed = 0;
    created = await timed("member create (with the kill)", () =>
      lab.stack().run(DAG, conf, 2_400_000, async (runId) => {
        // alice is added while the member boots (another DAG, side by side); the kill waits for it.
        userAdded = await timed("add_user", () =>
          lab.stack().run("identity_deployment", { ...userConf, action: "add_user", full_name: "Alice Example", groups: [GROUP] }, 1_200_000),
        );
        // Kill the join's worker once adcli has joined: the retry must find the join, not make a second.
        const ti = await waitFor(
          async () => {
            const lines = await lab.stack().logs(DAG, runId, "join_lab");
            if (!lines.some((l) => /^TASK \[lab_member : Check the keytab holds/.test(l))) return undefined;
            return await db
              .selectFrom("task_instance")
              .select(["state", "worker_id"])
              .where("dag_id", "=", DAG)
              .where("run_id", "=", runId)
              .where("task_id", "=", "join_lab")
              .executeTakeFirst();
          },
          { timeoutMs: 2_000_000, intervalMs: 1000, what: "the member's join past adcli" },
        );
        expect(ti.state).toBe("running");
        killed = await killWorker(lab.stack(), ti.worker_id!);
      }),
    );
    expect(killed).toBeGreaterThan(0);
    expect(created.state).toBe("success");
    expect(created.tis.join_lab).toMatchObject({ state: "success" });
    expect(created.tis.join_lab!.try_number).toBeGreaterThan(1);
    expect(created.tis.cleanup_on_failure!.state).toBe("skipped");
    expect(memberVms()).toEqual([member]);
    expect(existsSync(path.join(lab.stack().inventoryDir, "products", `${member}.json`))).toBe(true);
    // Joined once: the first try joined, every later one found the join (adcli testjoin) and skipped
    // it, or took the first try's result.
    const logs = await db
      .selectFrom("task_log")
      .select(["try_number", "line"])
      .where("dag_id", "=", DAG)
      .where("run_id", "=", created.runId)
      .where("task_id", "=", "join_lab")
      .orderBy("id")
      .execute();
    const joinTask = /^TASK \[lab_member : Join the domain/;
    const tries = [...new Set(logs.map((l) => l.try_number))];
    const linesOf = (t: number) => logs.filter((l) => l.try_number === t).map((l) => l.line);
    // A try that found the killed try's Ansible still running on this host waited for it and took
    // its result (the fence): its log replays that try's output, and nothing ran again.
    const adopted = (t: number) => linesOf(t).some((l) => /svc-fence: adopted the result of try \d+/.test(l));
    const outcomes = tries.map((t) => (adopted(t) ? "adopted" : taskResult(linesOf(t), joinTask)?.split(":")[0]));
    const fenceLines = logs.filter((l) => l.line.includes("svc-fence:")).map((l) => `${l.try_number}: ${l.line}`);
    process.stdout.write(`[lab members] the join task per try: ${JSON.stringify(outcomes)}; the fence said: ${JSON.stringify(fenceLines)}\n`);
    // The member's own check of its join (its keytab against the domain), as the retry ran it.
    const testjoin = await asRoot(`adcli testjoin --domain=${lab.domain} --domain-controller=${lab.label}-idm.${lab.domain}`);
    expect({ status: testjoin.status, out: `${testjoin.stdout}${testjoin.stderr}` }).toMatchObject({ status: 0 });
    const later = (o: string | undefined) => (o === "adopted" ? "adopted" : "skipping");
    expect(outcomes).toEqual(["changed", ...outcomes.slice(1, -1).map((o) => (o === undefined ? undefined : later(o))), later(outcomes.at(-1))]);
    expect(outcomes.length).toBeGreaterThan(1);
    expect(computerAccounts()).toHaveLength(1);
    // One A record, the member's lease on the lab network from the router.
    const macs = (created.tis.create_vm!.output as { macs: string[] }).macs.map((m) => m.toLowerCase());
    const leased = (await lab.leases()).split("\n").find((l) => macs.includes(l.split(" ")[1] ?? ""));
    expect(leased).toBeDefined();
    const address = leased!.split(" ")[2]!;
    expect(address.startsWith(`${lab.prefix}.`)).toBe(true);
    expect(dns(fqdn)).toBe(address);
  }, 2_500_000);

  test("add_user alice in developers writes her initial password only on the host (root, 0600), and kinit alice@REALM with it works through the forwarded KDC", () => {
    expect(userAdded.state).toBe("success");
    const st = statSync(passwordFile());
    expect({ mode: (st.mode & 0o777).toString(8), uid: st.uid }).toEqual({ mode: "600", uid: 0 });
    password = readFileSync(passwordFile(), "utf8").trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    const kinit = kinitUser(password);
    expect({ status: kinit.status, stderr: kinit.stderr }).toEqual({ status: 0, stderr: "" });
    expect(runClient("klist", [], { env: userEnv() }).stdout).toContain(`krbtgt/${realm}@${realm}`);
  });

  test("ssh with GSSAPI alone (no password, no key) to the member's forwarded SSH port logs in as alice, and id -Gn there shows developers", async () => {
    const port = forwardedPort(created, "tcp", 22);
    // The member's SPN is host/<fqdn>: ssh asks for that name while it connects to 127.0.0.1.
    const args = [
      "-F",
      "/dev/null",
      ...THROWAWAY_HOST,
      "-o",
      "GSSAPIAuthentication=yes",
      "-o",
      `GSSAPIServerIdentity=${fqdn}`,
      "-o",
      "PreferredAuthentications=gssapi-with-mic",
      "-o",
      "PubkeyAuthentication=no",
      "-o",
      "PasswordAuthentication=no",
      "-o",
      "KbdInteractiveAuthentication=no",
      "-o",
      "IdentityAgent=none",
      "-p",
      String(port),
      "-l",
      USER,
      "127.0.0.1",
      "id -un; id -Gn",
    ];
    // The member's sssd looks alice up at her first login: on a loaded TCG guest give it a second chance.
    let r: SshResult = { status: null, stdout: "", stderr: "" };
    await timed("GSSAPI login", async () => {
      for (let i = 0; i < 3 && r.status !== 0; i++) {
        if (i > 0) await new Promise((res) => setTimeout(res, 15_000));
        r = await sshAsync(args, 240_000, userEnv());
      }
    });
    // (A PAM note such as home directory creation may reach stderr: the status is what counts.)
    expect({ status: r.status, stderr: r.stderr.trim() }).toMatchObject({ status: 0 });
    const [name, groups] = r.stdout.trim().split("\n");
    expect(name).toBe(USER);
    expect(groups!.split(" ")).toContain(GROUP);
    // The login was Kerberos: the ccache now holds the member's service ticket.
    expect(runClient("klist", [], { env: userEnv() }).stdout).toContain(`host/${fqdn}@${realm}`);
  }, 800_000);

  test("on the member, curl https://<lab registry fqdn>:5000/v2/ verifies the registry's certificate without -k (the lab CA is trusted) and gets the registry's 401", async () => {
    const registry = `${lab.label}-registry.${lab.domain}`;
    const r = await asRoot(`curl -sS -o /dev/null -w '%{http_code}' --max-time 60 https://${registry}:5000/v2/`);
    expect({ status: r.status, code: r.stdout, stderr: r.stderr }).toEqual({ status: 0, code: "401", stderr: "" });
  }, 300_000);

  test("deleting the member leaves no record: dig gives NXDOMAIN, an LDAPS search finds no computer account, and the VM and the host's member record are gone", async () => {
    const del = await timed("member delete", () => lab.stack().run(DAG, { action: "delete", vm_name: member, lab: lab.label }, 1_200_000));
    expect(del.state).toBe("success");
    expect(del.tis.leave_lab!.state).toBe("success");
    expect(digStatus(forwardedPort(idm(), "tcp", 53), fqdn, "A")).toBe("NXDOMAIN");
    expect(computerAccounts()).toEqual([]);
    expect(memberVms()).toEqual([]);
    expect(existsSync(path.join(lab.stack().inventoryDir, "products", `${member}.json`))).toBe(false);
  }, 1_300_000);

  test("remove_user alice makes the next kinit alice@REALM with her password fail, and her password file is gone", async () => {
    const removed = await timed("remove_user", () => lab.stack().run("identity_deployment", { ...userConf, action: "remove_user" }, 1_200_000));
    expect(removed.state).toBe("success");
    expect(existsSync(passwordFile())).toBe(false);
    const kinit = kinitUser(password);
    expect(kinit.status).not.toBe(0);
    expect(kinit.stderr).toMatch(/not found in Kerberos database|Client .* not found/i);
  }, 1_300_000);
}
