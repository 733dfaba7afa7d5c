import { progressLine, ProgressReporter } from "./progress";

describe("download progress", () => {
  it("shows bytes, total and percent, or bytes alone when the size is unknown", () => {
    expect(progressLine("debian12", 3 * 1024 * 1024, 12 * 1024 * 1024)).toBe("debian12: 3.0 MiB / 12.0 MiB (25%)");
    expect(progressLine("debian12", 1536 * 1024, null)).toBe("debian12: 1.5 MiB");
  });

  it("reports at most once per interval, and always at the end", () => {
    let now = 0;
    const lines: string[] = [];
    const p = new ProgressReporter(
      "img",
      1000,
      (l) => lines.push(l),
      1000,
      () => now,
    );
    p.add(100); // first chunk: reported
    now = 500;
    p.add(100); // within the interval: quiet
    now = 999;
    p.add(100);
    now = 1000;
    p.add(100); // interval passed
    now = 1200;
    p.add(600);
    p.finish();
    expect(lines.map((l) => l.replace(/.*\((\d+)%\)/, "$1"))).toEqual(["10", "40", "100"]);
    expect(p.bytes).toBe(1000);
  });
});
