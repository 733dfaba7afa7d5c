import { hostRegion } from "../providers";
import type { HostRecord } from "../types";

/** A settings key that could carry a credential: never shown, whatever wrote the row. */
const SECRET_KEY = /secret|token|password|passwd|private|access_key|api_key|credential_value|session/i;

/**
 * A host as the REST API and the web UI show it: its record with the cloud host's `region` (null
 * for libvirt) and its provider settings without anything that could be a credential (the settings
 * hold none by their schema; this holds for rows written another way too).
 */
export function hostView<T extends HostRecord>(r: T): T & { region: string | null } {
  const settings = Object.fromEntries(Object.entries(r.provider_settings).filter(([k]) => !SECRET_KEY.test(k)));
  return { ...r, provider_settings: settings, region: hostRegion(r) ?? null };
}
