import type { IntentFrame } from "./intent-frame";

/**
 * Questions about certificates running out ("any TLS certs going stale soon?", "which certificates
 * run out this month?", "¿hay certificados a punto de caducar?", "laufen bald Zertifikate ab?").
 * They are answered by the read-only check's certificate report, never by creating a CA or
 * issuing a certificate. An order to change certificates (renew, rotate, issue) is not one.
 */

/** Certificates named as such, in the languages the router reads (accent-folded). */
const CERT_NOUN = /\b(certs?|certificates?|tls|ssl|x509|certificados?|zertifikate?n?|certificats?)\b/;
/** What an expiry question asks about: the end of a certificate's life, or whether it still holds. */
const EXPIRY_CUE =
  /\b(expir\w*|stale|run(ning)? out|runs out|lapse\w*|still valid|valid(ity)?|out of date|outdated|go(ing)? bad|caduc\w*|venc\w*|expiran?|ablauf\w*|abgelaufen|laufen (bald )?(\w+ )?ab|lauft (bald )?(\w+ )?ab|gultig\w*|perim\w*)\b/;
/** Orders that change certificates: the check does not do them. */
const CHANGE_CUE = /\b(renew\w*|rotate|rotation|replace|reissue|re-issue|issue|sign|revoke|generate|erneuer\w*|renouvel\w*|renueva\w*)\b/;

/** True when the request asks whether certificates are expiring (and orders no change). */
export function isExpiryQuestion(text: string, frame: IntentFrame): boolean {
  const t = frame.words.join(" ");
  if (!CERT_NOUN.test(t) || !EXPIRY_CUE.test(t)) return false;
  if (frame.action === "create" || frame.action === "delete" || frame.withdrawn) return false;
  return !CHANGE_CUE.test(t) || (frame.question && /\?\s*$/.test(text.trim()));
}
