import { positiveText, readFrame } from "./intent-frame";

describe("readFrame: multilingual action lexicon", () => {
  test.each([
    ["nuke vm scratch-1", "delete"],
    ["purge the vm", "delete"],
    ["I no longer need vm web01", "delete"],
    ["we'd like FreeIPA decommissioned", "delete"],
    ["lösche die VM web01", "delete"],
    ["ich brauche die VM test-4 nicht mehr", "delete"],
    ["supprime la vm web01", "delete"],
    ["je n'ai plus besoin de la vm demo-3", "delete"],
    ["borra la vm web01", "delete"],
    ["elimina freeipa", "delete"],
    ["crea una vm llamada web01", "create"],
    ["erstelle eine VM namens web01", "create"],
    ["crée une vm appelée web01", "create"],
    ["get a FreeIPA box running", "create"],
    ["stoppe die VM web01", "stop"],
    ["arrête la vm", "stop"],
    ["power off vm web01", "stop"],
    ["restart the router", "restart"],
    ["upgrade openshift", "change"],
    ["list vms", "list"],
    ["zeige alle VMs", "list"],
  ])("%s → %s", (text, action) => {
    expect(readFrame(text).action).toBe(action);
  });
});

describe("readFrame: negation scope and retraction", () => {
  test("a negated action does not count; the next clause's action does", () => {
    const f = readFrame("don't delete web01, just stop it");
    expect(f.action).toBe("stop");
    expect(f.mentions.map((m) => [m.action, m.negated])).toEqual([
      ["delete", true],
      ["stop", false],
    ]);
  });

  test("a retraction takes back everything before it: nothing is left to run", () => {
    expect(readFrame("delete vm web01 — actually no, keep it")).toMatchObject({ action: null, withdrawn: true });
    expect(readFrame("remove the vm db-1... never mind")).toMatchObject({ action: null, withdrawn: true });
    expect(readFrame("no, don't tear down the router")).toMatchObject({ action: null, withdrawn: true });
  });

  test("a withdrawal takes back what follows it in its clause too: nothing is left to run", () => {
    for (const text of [
      "never mind the registry, I'll set it up myself",
      "hold off on the harbor registry, the team is doing it by hand",
      "cancel the openshift install I asked for",
      "on second thought, leave the router alone",
      "forget about the freeipa server",
    ]) {
      expect({ text, ...readFrame(text) }).toMatchObject({ text, action: null, withdrawn: true });
    }
  });

  test("a withdrawal takes back an earlier request when it names that request's object or nothing, not when it drops a detail", () => {
    expect(readFrame("create a vm called web01. never mind the vm")).toMatchObject({ action: null, withdrawn: true });
    expect(readFrame("install harbor, cancel that")).toMatchObject({ action: null, withdrawn: true });
    const detail = readFrame("deploy freeipa, forget the dns forwarder");
    expect(detail).toMatchObject({ action: "create", withdrawn: false });
    expect(positiveText(detail)).not.toMatch(/forwarder/);
  });

  test("a withdrawal followed by a new request keeps the new one; 'don't forget to' withdraws nothing", () => {
    expect(readFrame("forget about harbor, install quay instead").action).toBe("create");
    expect(readFrame("don't forget to create the vm web-2")).toMatchObject({ action: "create", withdrawn: false });
  });

  test("a lone 'no' corrects the clause before it; 'my list' and 'new intern' are not verbs", () => {
    expect(positiveText(readFrame("we need a harbor... no, an artifactory registry"))).toBe("an artifactory registry");
    expect(readFrame("Next thing on my list: a harbor registry").action).toBeNull();
    expect(readFrame("New intern here. Can you build me a lab?")).toMatchObject({ action: "create", question: false });
  });

  test("a correction keeps the action and replaces the value or object", () => {
    const f = readFrame("install openshift 4.18, no wait, 4.19");
    expect(f.action).toBe("create");
    expect(positiveText(f)).not.toMatch(/4\.18/);
    expect(readFrame("don't install harbor, I meant quay").action).toBe("create");
  });

  test("negated values and a failed attempt's values are left out of the positive text", () => {
    expect(positiveText(readFrame("deploy openshift, not a full cluster, just single-node"))).toBe("deploy openshift not just single-node");
    expect(positiveText(readFrame("the last try on version 4.17 failed, use 4.18"))).toBe("use 4.18");
    expect(positiveText(readFrame("tear down idm, keep the CA"))).not.toMatch(/\bca\b/);
  });

  test("the scope of a negation ends at 'and', 'after', a comma or 'but'", () => {
    const f = readFrame("do not configure the vm web01 after creating it");
    expect(f.action).toBe("create");
    expect(positiveText(f)).toBe("do not after creating it");
  });
});

describe("readFrame: question detection", () => {
  test.each([
    "which VMs are running?",
    "did the cluster install finish?",
    "is freeipa healthy?",
    "what's the status of the hypervisor?",
    "welche VMs laufen?",
    "¿qué máquinas virtuales están funcionando?",
  ])("'%s' is a question about state", (text) => {
    expect(readFrame(text)).toMatchObject({ question: true, stateQuestion: true });
  });

  test.each([
    "can you deploy freeipa?",
    "could you install a freeipa server please",
    "is it possible to deploy a CA?",
    "I'm on my third coffee — can you deploy freeipa?",
    "do not configure it",
  ])("'%s' is a polite or negated order, not a question", (text) => {
    expect(readFrame(text).question).toBe(false);
  });

  test("a question about a change is not a request for one", () => {
    expect(readFrame("did you delete web01?")).toMatchObject({ question: true, action: "delete" });
  });
});
