import type { IntentFrame } from "./intent-frame";

/**
 * A product named in a request for something else ("write a post about our cluster", "book a room
 * for the registry review", "the history of Kerberos"): the product is the topic, not the object,
 * and no workflow does what is asked. Read on the frame's accent-folded words.
 */

/** Verbs of work the catalogue does not do: writing, meetings, errands, explanations. */
const WORK_VERBS = new Set([
  "write",
  "draft",
  "compose",
  "summarize",
  "summarise",
  "explain",
  "describe",
  "book",
  "schedule",
  "organise",
  "organize",
  "arrange",
  "plan",
  "prepare",
  "send",
  "post",
  "tweet",
  "email",
  "print",
  "buy",
  "purchase",
  "order",
  "read",
  "translate",
  "file",
  "draw",
  "sketch",
  "present",
  "announce",
  "celebrate",
  "discuss",
  "document",
  "remind",
  "invite",
  "blog",
  "research",
  "teach",
  "compare",
  "recommend",
  "redacta",
  "escribe",
  "schreibe",
  "schreib",
  "ecris",
  "redige",
]);

/** What those verbs make or are about: documents, messages, meetings, tickets. */
const ARTIFACTS =
  /^(posts?|blog|e-?mails?|mails?|messages?|letters?|tickets?|jira|issues?-?tracker|diagrams?|charts?|drawings?|pictures?|spreadsheets?|sheets?|slides?|decks?|presentations?|documents?|docs?|documentation|wiki|pages?|articles?|summary|summaries|meetings?|calls?|invites?|invitations?|calendar|agenda|rooms?|workshops?|training|courses?|sessions?|posters?|flyers?|playlists?|tweets?|newsletters?|paragraphs?|runbooks?|outlines?|backlog|sprint|notes?|reminders?|surveys?|polls?|budgets?|proposals?|memos?|faq|videos?|incidents?|outages?|postmortems?|channels?|checklists?|roadmaps?|timelines?|estimates?|quotes?|invoices?|books?|talks?|demos?)$/;

/** Nouns of a topic rather than a thing to deploy. */
const TOPICS = /^(history|difference|differences|definition|meaning|origin|origins|fact|facts|pros|cons|comparison|overview|tutorial|introduction|intro|explanation|trivia)$/;

/** Words before the verb that keep it an order ("please", "could you", "I need you to"). */
const LEAD_IN = new Set([
  "please",
  "pls",
  "plz",
  "kindly",
  "can",
  "could",
  "would",
  "will",
  "you",
  "u",
  "i",
  "we",
  "need",
  "want",
  "you",
  "to",
  "help",
  "me",
  "us",
  "quickly",
  "now",
  "also",
  "and",
  "then",
  "just",
  "go",
  "ahead",
  "id",
  "i'd",
  "like",
  "let's",
  "lets",
]);
/** Words that end the object of a verb. */
const OBJECT_END = /^(,|for|about|on|with|of|to|into|in|from|at|by|that|which|who|saying|describing|listing|celebrating|announcing|is|are|was|were)$/;
/** Words that end an "add … to <artifact>" destination search. */
const INTO = /^(to|into|onto|on|in)$/;

/** The first word of the request after a polite lead-in, and its index. */
function firstVerb(words: readonly string[]): number {
  let i = 0;
  while (i < words.length && (LEAD_IN.has(words[i]!) || words[i] === ",")) i++;
  return i;
}

/** True when a create verb's object (up to where it ends) is an artifact, or what it is added to is one. */
function makesArtifact(words: readonly string[], from: number): boolean {
  for (let j = from; j < Math.min(words.length, from + 7); j++) {
    const w = words[j]!;
    if (ARTIFACTS.test(w)) return true;
    if (INTO.test(w)) return words.slice(j + 1, j + 5).some((x) => ARTIFACTS.test(x));
    if (OBJECT_END.test(w)) return false;
  }
  return false;
}

/** Why the request only mentions a catalogue thing, or null when it may be a request for one. */
export function mentionRefusal(frame: IntentFrame): string | null {
  const words = frame.words.map((w) => w.replace(/[?!.]+$/, ""));
  const live = frame.mentions.filter((m) => !m.negated && !m.retracted && (m.action === "create" || m.action === "delete"));
  // "new" is an adjective more often than an order ("the new cluster is ready").
  const orders = live.filter((m) => m.phrase !== "new");
  const start = firstVerb(words);
  const verb = words[start];
  // "write down the name, then deploy freeipa": an order that starts its own clause is a request of its own.
  const startsClause = (at: number) => {
    let k = at - 1;
    let joined = false;
    for (; k > start && LEAD_IN.has(words[k]!); k--) if (["and", "then", "also"].includes(words[k]!)) joined = true;
    return joined || words[k] === ",";
  };
  const tells = verb === "tell" && /^(me|us)$/.test(words[start + 1] ?? "") && /^(about|a|the|some|more|why|how)$/.test(words[start + 2] ?? "");
  if (verb && (WORK_VERBS.has(verb) || tells) && !orders.some((m) => m.at > start && startsClause(m.at))) {
    return `That names something the catalogue deploys, but asks to ${verb} something; no workflow does that, and nothing was run.`;
  }
  const made = orders.find((m) => m.action === "create" && makesArtifact(words, m.end));
  if (made) return `That asks to ${made.phrase} something that is not a service or a VM (a document, message, meeting or ticket); no workflow does that, and nothing was run.`;
  if (orders.length === 0 && words.some((w) => TOPICS.test(w))) {
    return "That asks about a topic (its history or how it compares), not for a deployment; nothing was run. The documentation search can answer questions about the platform.";
  }
  return null;
}
