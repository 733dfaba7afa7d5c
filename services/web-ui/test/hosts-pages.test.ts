import request from "supertest";
import { place, placementPolicy } from "@svc/hosts";
import { AUTH } from "./helpers";
import { BETA_PROBED_AT, createHostPagesFixture, HOSTILE_VM, VIEWER_TOKEN, type HostPagesFixture } from "./host-pages-fixture";

// /hosts and /vms against a real Postgres inventory: three hosts recorded without contacting them
// and given probes as a worker records them (alpha fresh, beta stale, gamma never read).
let f: HostPagesFixture;
beforeAll(async () => {
  f = await createHostPagesFixture("webhostpages");
});
afterAll(async () => f?.close());

/** A page as the admin sees it, alpha's probe recorded just before (fresh, whatever the machine's load). */
async function admin(url: string, status = 200) {
  await f.probeAlpha();
  return request(f.app).get(url).auth(AUTH.adminUser!, AUTH.adminPassword!).expect(status);
}
/** One host's row (or one VM's rows) of a page. */
const rowsOf = (text: string, attr: string, value: string) => [...text.matchAll(new RegExp(`<tr ${attr}="${value}"[\\s\\S]*?</tr>`, "g"))].map((m) => m[0]);

describe("/hosts", () => {
  test("lists every host with state, up/down from its last probe, SSH target, libvirt URI, images and VM count", async () => {
    const res = await admin("/hosts");
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect([...res.text.matchAll(/<tr data-host="([a-z0-9-]+)"/g)].map((m) => m[1])).toEqual(["alpha", "beta", "gamma"]);
    const [alpha] = rowsOf(res.text, "data-host", "alpha");
    expect(alpha).toContain('id="host-alpha"');
    expect(alpha).toContain('<span class="state">active</span>');
    expect(alpha).toMatch(/<span class="state s-success">up<\/span> <span class="muted small">probed <time datetime="[^"]+"/);
    expect(alpha).toContain("svcops@10.0.0.11:2222");
    expect(alpha).toContain("qemu+ssh://svcops@10.0.0.11/system");
    expect(alpha).toContain("alma-9, debian-12");
    expect(alpha).toContain('<a href="/vms?host=alpha" title="2 made by svc">3</a>');
    expect(alpha).toContain('<span class="tag">zone=a</span>');
    const [beta] = rowsOf(res.text, "data-host", "beta");
    expect(beta).toContain('<span class="state s-up_for_retry">draining</span>');
    expect(beta).toMatch(/<span class="state s-failed">down<\/span> <span class="small probe-error">no probe in the last 30 s<\/span>/);
    expect(beta).toContain(`last read <time datetime="${BETA_PROBED_AT}"`);
    const [gamma] = rowsOf(res.text, "data-host", "gamma");
    expect(gamma).toContain("ssh: connect ECONNREFUSED 10.0.0.13:22");
    expect(gamma).toContain("never read");
    expect(gamma).toContain("no probe recorded");
  });

  test("room left is after each host's reserve and is the same as placement's numbers", async () => {
    const res = await admin("/hosts");
    const [alpha] = rowsOf(res.text, "data-host", "alpha");
    // memory: min(12000 free, 16384 - 3072 committed) - 1024 reserve; vCPUs: 8 × 2 - 2 reserved, 3 used; disk: 200 - 10.
    expect(alpha).toContain(">10976 / 16384 MiB free</td>");
    expect(alpha).toContain('title="8 × 2 − 2 reserved; 11 free">3 / 14 used</td>');
    expect(alpha).toContain(">190 / 500 GB free</td>");
    const [beta] = rowsOf(res.text, "data-host", "beta");
    expect(beta).toContain(">12000 / 16384 MiB free</td>");
    expect(beta).toContain(">1 / 4 used</td>");
    expect(beta).toContain(">40 / 100 GB free</td>");
    const r = await f.hosts.info("alpha");
    const verdict = place({ memoryMb: 1, cpus: 1, disksGb: [] }, [{ ...placementPolicy(r), capacity: r.last_probe }]).verdicts[0]!;
    expect(verdict.numbers).toEqual({ memory_free_mb: 10976, vcpus_free: 11, disk_free_gb: 190 });
  });

  test("the navigation of every page links to Hosts and VMs", async () => {
    const res = await admin("/vms");
    expect(res.text).toContain('<nav aria-label="Main"><a href="/home">DAGs</a><a href="/hosts">Hosts</a><a href="/vms">VMs</a>');
  });
});

describe("/vms", () => {
  test("one row per VM of every host from the last probes, with host link, state, maker, memory and vCPUs", async () => {
    const res = await admin("/vms");
    const rows = [...res.text.matchAll(/<tr data-host="([a-z0-9-]+)" data-vm="([^"]*)"/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(rows).toEqual(["alpha/&#60;img src&#61;x onerror&#61;&#34;alert(1)&#34;&#62;", "alpha/db01", "alpha/web01", "beta/old01"]);
    const [web01] = rowsOf(res.text, 'data-host="alpha" data-vm', "web01");
    expect(web01).toContain('<td><a href="/hosts#host-alpha">alpha</a></td>');
    expect(web01).toContain('<span class="state s-success">running</span>');
    expect(web01).toContain("<td>yes</td><td>2048</td><td>2</td>");
    const [old01] = rowsOf(res.text, 'data-host="beta" data-vm', "old01");
    expect(old01).toContain('<a href="/hosts#host-beta">beta</a> <span class="muted small">(stale)</span>');
    expect(res.text).toContain("4 VM(s) on 3 host(s)");
  });

  test("a host whose probe is stale or missing gets a note, and the other hosts' VMs are still listed", async () => {
    const res = await admin("/vms");
    const notes = /<section class="banner info" aria-label="Hosts not read lately"><ul>([\s\S]*?)<\/ul>/.exec(res.text)![1]!;
    expect(notes).not.toContain('data-host="alpha"');
    expect(notes).toMatch(
      new RegExp(
        `<li data-host="beta"><a href="/hosts#host-beta">beta</a>: not read since <time datetime="${BETA_PROBED_AT}"[^>]*>[^<]+</time> \\(its VMs below are from that probe\\); <span class="probe-error">no probe in the last 30 s</span>`,
      ),
    );
    expect(notes).toContain(
      '<li data-host="gamma"><a href="/hosts#host-gamma">gamma</a>: never read: no VMs known; <span class="probe-error">ssh: connect ECONNREFUSED 10.0.0.13:22</span>',
    );
    expect(rowsOf(res.text, 'data-host="alpha" data-vm', "web01")).toHaveLength(1);
  });

  test("?host= shows that host's VMs only; empty shows all; a well-formed name not in the inventory is a 404 page", async () => {
    const beta = await admin("/vms?host=beta");
    expect(beta.text).toContain("<title>VMs on beta - svc</title>");
    expect([...beta.text.matchAll(/data-vm="([^"]*)"/g)].map((m) => m[1])).toEqual(["old01"]);
    expect(beta.text).toContain('<option value="beta" selected>beta</option>');
    expect(beta.text).not.toContain('<li data-host="gamma"');
    const gamma = await admin("/vms?host=gamma");
    expect(gamma.text).toContain("No VMs on gamma.");
    const all = await admin("/vms?host=");
    expect([...all.text.matchAll(/data-vm="/g)]).toHaveLength(4);
    const missing = await admin("/vms?host=nope", 404);
    expect(missing.headers["content-type"]).toMatch(/text\/html/);
    expect(missing.text).toContain("host &#39;nope&#39; is not in the inventory");
  });

  test("a bad host name, a repeated or an unknown parameter is refused with the 400 page and changes nothing", async () => {
    const snapshot = async () => ({
      hosts: await f.tdb.db.selectFrom("hypervisor_host").selectAll().orderBy("name").execute(),
      audits: await f.tdb.db.selectFrom("audit_event").selectAll().orderBy("id").execute(),
    });
    const before = await snapshot();
    for (const url of ["/vms?host=Bad_Name", `/vms?host=${encodeURIComponent("<script>x</script>")}`, "/vms?host=alpha&host=beta", "/vms?zone=a"]) {
      const res = await request(f.app).get(url).auth(AUTH.adminUser!, AUTH.adminPassword!).expect(400);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      expect(res.text).toMatch(/<title>Bad Request - svc<\/title>[\s\S]*<p>(host|zone): /);
      expect(res.text).not.toContain("<script>x");
    }
    expect(await snapshot()).toEqual(before);
  });

  test("a VM name with markup is shown as text, never as HTML", async () => {
    const res = await admin("/vms");
    expect(res.text).not.toContain("<img src=x");
    expect(res.text).toContain("<td><strong>&#60;img src&#61;x onerror&#61;&#34;alert(1)&#34;&#62;</strong></td>");
    expect(HOSTILE_VM).toContain("<img");
  });
});

describe("who may read the host pages", () => {
  test("a viewer reads both pages", async () => {
    await f.probeAlpha();
    for (const url of ["/hosts", "/vms", "/vms?host=alpha"]) {
      const res = await request(f.viewer).get(url).set("Authorization", `Bearer ${VIEWER_TOKEN}`).expect(200);
      expect(res.text).toContain(url === "/hosts" ? 'id="host-alpha"' : 'data-vm="web01"');
    }
  });

  test("without credentials both pages are refused (401), as the other pages are", async () => {
    for (const url of ["/hosts", "/vms", "/vms?host=alpha", "/vms?host=Bad_Name"]) {
      await request(f.app).get(url).expect(401);
      await request(f.app).get(url).set("Authorization", "Bearer wrong").expect(401);
    }
  });

  test("a process whose pages have no database answers 503 instead of guessing", async () => {
    const res = await request(f.noDb).get("/hosts").auth(AUTH.adminUser!, AUTH.adminPassword!).expect(503);
    expect(res.text).toContain("the host inventory is not available in this process");
  });
});
