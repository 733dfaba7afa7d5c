import type { IntentFrame } from "./intent-frame";

/**
 * Questions about a run that already happened ("why did my last identity deployment fail?", "did
 * the cluster install finish?", "show me the logs of the failed CA deployment"). They are answered
 * from the run (observe), never by starting a workflow, nor by the health check, which looks at
 * hosts and VMs rather than at runs.
 */

/** Nouns that name a run (en, es, de, fr; accent-folded). */
const RUN_NOUNS = new Set([
  "job",
  "jobs",
  "deployment",
  "deployments",
  "installation",
  "installations",
  "rollout",
  "rollouts",
  "provisioning",
  "creation",
  "deletion",
  "removal",
  "teardown",
  "execution",
  "despliegue",
  "instalacion",
  "ejecucion",
  "bereitstellung",
  "lauf",
  "deploiement",
]);

/** Verbs that name a run when used as a noun ("the cluster install", "my vm build"). */
const VERB_NOUNS = new Set(["run", "runs", "install", "deploy", "build", "upgrade", "delete", "setup", "try", "attempt", "request"]);

/** Words after which a verb is a noun: determiners, possessives, times, and the catalogue's own nouns. */
const NOUN_BEFORE =
  /^(the|my|our|your|their|last|latest|previous|recent|yesterday'?s?|today'?s|this|that|first|failed|cluster|openshift|ocp|okd|vm|freeipa|idm|ipa|identity|ca|step-ca|registry|harbor|quay|router|vyos|server|certificate)$/;

/** Words a run noun is followed by (its predicate, or the question's end); an object after it makes it a verb. */
const NOUN_AFTER =
  /^(,|finish\w*|fail\w*|complete\w*|succe\w*|work\w*|go|went|gone|is|was|were|has|had|have|did|does|take|took|taking|still|log|logs|error|errors|output|status|step|yet|done|stuck|hung|from|of|at|on|in|for|to|this|last|yesterday|earlier|today|run|running|job|end\w*|crash\w*|break|broke|hang\w*)$/;

/** What a question about a run asks for. */
const RUN_CUES =
  /\b(why|por que|warum|pourquoi|what went wrong|went wrong|what happened|how long|how far|stuck|hung|hanging|taking so long|still running|logs?|errors?|output|fail\w*|falló|fallo|fehlgeschlagen|echoue|succe\w*|successful\w*|finish\w*|complete\w*|done|go through|went through|work(ed)?|status|progress|step)\b/;
/** Asking forms that are not interrogatives ("show me the logs", "any idea why"). */
const ASKING = /\b(tell me|show me|give me|any idea|do you know|let me know|find out)\b/;
/** A past-tense question opening ("did", "was", "has") over an action: it asks what became of a change. */
const PAST_OPENERS = new Set(["did", "was", "were", "has", "have", "had"]);

/** Indices of the words that name a run. */
function runReferences(words: readonly string[], dagIds: ReadonlySet<string>): number[] {
  const at: number[] = [];
  words.forEach((w, i) => {
    // A workflow named by its id ("why did vm_deployment fail") is named for its runs.
    if (RUN_NOUNS.has(w) || dagIds.has(w)) at.push(i);
    else if (VERB_NOUNS.has(w) && NOUN_BEFORE.test(words[i - 1] ?? "") && (i + 1 === words.length || NOUN_AFTER.test(words[i + 1]!.replace(/\?$/, "")))) at.push(i);
  });
  return at;
}

/** What the request asks about a past run (for the reply), or null when it is not about a run. */
export function runQuestion(frame: IntentFrame, dagIds: ReadonlySet<string>): string | null {
  const words = frame.words.map((w) => w.replace(/[?]+$/, ""));
  const text = words.join(" ");
  const refs = runReferences(words, dagIds);
  const live = frame.mentions.filter((m) => !m.negated && !m.retracted && (m.action === "create" || m.action === "delete"));
  // "did you delete web01?", "was my identity server deployed?": a past question over a change.
  const opener = words.find((w) => w !== ",");
  if (frame.asks && opener && PAST_OPENERS.has(opener) && live.length > 0) return "what became of an earlier change";
  if (refs.length === 0) return null;
  if (frame.asks || frame.question) return "a question about it";
  // A statement or an order: it must ask about the run, and ask for no change besides the run it names.
  const asksAboutRun = ASKING.test(text) || RUN_CUES.test(text);
  const ordersChange = live.some((m) => !refs.includes(m.at));
  return asksAboutRun && !ordersChange ? "its outcome, log or error" : null;
}
