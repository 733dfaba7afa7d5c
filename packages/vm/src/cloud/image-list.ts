import type { ImageInfo } from "../types";

/** A cloud's table of OS names → its images, as `images` lists it: each boots from a disk and is the OS it is named for. */
export function cloudImageList<T>(table: Record<string, T>, show: (image: T) => { path: string; description: string }): Promise<ImageInfo[]> {
  return Promise.resolve(
    Object.entries(table).map(([name, image]) => {
      const { path, description } = show(image);
      return { name, path, boot: "disk" as const, description, os: name };
    }),
  );
}
