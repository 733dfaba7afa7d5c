import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

/** The test VM image as registered in an images directory. */
export interface TestImage {
  image: string;
  imagesDir: string;
  /** Seconds the build script took (a few minutes once, then ~0 when cached). */
  buildSeconds: number;
}

const SCRIPT = resolve(__dirname, "../../../../scripts/development/build-test-image.sh");
export const TEST_IMAGE_NAME = "debian-test";
export const TEST_IMAGES_DIR = process.env.SVC_TEST_IMAGES_DIR ?? "/var/cache/svc/images";

/** Build (or reuse, when up to date) the Debian test image and register it; needs root. */
export function ensureTestImage(): TestImage {
  const started = Date.now();
  const r = spawnSync("bash", [SCRIPT, "--images-dir", TEST_IMAGES_DIR, "--name", TEST_IMAGE_NAME], { encoding: "utf8", timeout: 1_200_000 });
  if (r.status !== 0) throw new Error(`build-test-image.sh failed (exit ${r.status}): ${(r.stderr || String(r.error)).slice(-2000)}`);
  return { image: TEST_IMAGE_NAME, imagesDir: TEST_IMAGES_DIR, buildSeconds: Math.round((Date.now() - started) / 1000) };
}

const PRODUCT_SCRIPT = resolve(__dirname, "../../../../scripts/development/build-debian12-image.sh");
export const PRODUCT_IMAGE_NAME = "debian12";

/** Build (or reuse) the Debian 12 image with the products' packages and register it as debian12; needs root. */
export function ensureProductImage(): TestImage {
  const started = Date.now();
  const r = spawnSync("bash", [PRODUCT_SCRIPT, "--images-dir", TEST_IMAGES_DIR], { encoding: "utf8", timeout: 2_400_000 });
  if (r.status !== 0) throw new Error(`build-debian12-image.sh failed (exit ${r.status}): ${(r.stderr || String(r.error)).slice(-2000)}`);
  return { image: PRODUCT_IMAGE_NAME, imagesDir: TEST_IMAGES_DIR, buildSeconds: Math.round((Date.now() - started) / 1000) };
}
