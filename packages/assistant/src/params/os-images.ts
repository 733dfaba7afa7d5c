import type { InputRequest } from "../types";
import { findImage } from "./value-extractors";

/**
 * A user names the OS ("on debian", "debian 12", "bookworm", "rocky 9"); a workflow takes an image's
 * registered name (debian12, rocky9). An OS with no image is asked again, naming the images offered,
 * never replaced by the workflow's default image.
 */

/** An OS the request names, and the image it maps to when it names a release. */
export interface OsMention {
  /** The words as found ("debian 11", "debian"). */
  given: string;
  family: string;
  /** The image name for a release ("debian12"); absent when only the family was named. */
  image?: string;
}

/** The images svc registers or supports for the product workflows, by registered name. */
export const OFFERED_IMAGES: readonly { image: string; os: string; family: string }[] = [
  { image: "debian12", os: "Debian 12", family: "debian" },
  { image: "centos9stream", os: "CentOS Stream 9", family: "centos" },
  { image: "centos10stream", os: "CentOS Stream 10", family: "centos" },
  { image: "rocky9", os: "Rocky Linux 9", family: "rocky" },
  { image: "rhel9", os: "RHEL 9", family: "rhel" },
  { image: "rhel10", os: "RHEL 10", family: "rhel" },
];

/** A family named without a release ("on debian", "a Debian VM"); "red hat" alone names the identity product, not an OS. */
const FAMILY = /\b(debian|centos|rocky|rhel|fedora|ubuntu|almalinux|alma)\b/;

/** The OS the text (normalised tokens joined by spaces) names, if any. */
export function readOsMention(text: string): OsMention | undefined {
  const found = findImage(text);
  if (found) return { given: found.words, family: found.value.replace(/\d.*$/, ""), image: found.value };
  const family = FAMILY.exec(text)?.[1];
  return family ? { given: family, family: family === "alma" ? "almalinux" : family } : undefined;
}

const offeredList = (list: readonly { image: string; os: string }[]) => list.map((o) => `${o.image} (${o.os})`).join(", ");

/**
 * The image a workflow gets for an OS mention, or what to ask. `anyImage`: the workflow takes any
 * image of the host's images directory (the generic VM), so a named release is used as named.
 */
export function imageForOs(mention: OsMention, opts: { anyImage: boolean; defaultImage?: string }): { image?: string; issue?: InputRequest } {
  if (mention.image) {
    if (opts.anyImage || mention.image === opts.defaultImage || OFFERED_IMAGES.some((o) => o.image === mention.image)) return { image: mention.image };
    return {
      issue: {
        field: "image",
        rule: `image must be one of the images offered for this workflow: ${OFFERED_IMAGES.map((o) => o.image).join(", ")}`,
        question: `Which image should it use? There is no image for ${mention.given}; the images offered are ${offeredList(OFFERED_IMAGES)}.`,
        given: mention.given,
      },
    };
  }
  const family = OFFERED_IMAGES.filter((o) => o.family === mention.family);
  if (family.length === 1) return { image: family[0]!.image };
  const choices = family.length > 1 ? family : OFFERED_IMAGES;
  const which = family.length > 1 ? `'${mention.given}' has more than one release here` : `there is no ${mention.given} image here`;
  return {
    issue: {
      field: "image",
      rule: `image must name a release: ${which}`,
      question: `Which image should it use? ${which[0]!.toUpperCase()}${which.slice(1)}; the images offered are ${offeredList(choices)}${opts.anyImage ? ", or another image in the host's images directory" : ""}.`,
      given: mention.given,
    },
  };
}
