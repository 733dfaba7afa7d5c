const MiB = 1024 * 1024;

function size(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** One progress line: `<label>: 12.0 MiB / 512.3 MiB (2%)`, or without a total when unknown. */
export function progressLine(label: string, done: number, total: number | null): string {
  if (!total) return `${label}: ${size(done)}`;
  return `${label}: ${size(done)} / ${size(total)} (${Math.floor((done / total) * 100)}%)`;
}

/**
 * Reports a transfer at most once per `intervalMs` (and always at the end), so a fast download
 * does not flood a log with thousands of lines.
 */
export class ProgressReporter {
  private done = 0;
  private last = -Infinity;

  constructor(
    private readonly label: string,
    private readonly total: number | null,
    private readonly emit: (line: string) => void,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Count `bytes` more; emit a line when the interval has passed. */
  add(bytes: number): void {
    this.done += bytes;
    const t = this.now();
    if (t - this.last >= this.intervalMs) {
      this.last = t;
      this.emit(progressLine(this.label, this.done, this.total));
    }
  }

  /** The final line, whatever the interval. */
  finish(): void {
    this.emit(progressLine(this.label, this.done, this.total));
  }

  get bytes(): number {
    return this.done;
  }
}
