import { StringDecoder } from "node:string_decoder";

/**
 * Turns a byte stream into lines for the task log and keeps the (capped) whole text.
 * UTF-8 sequences split across chunks are decoded correctly; `\r\n` counts as one newline.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";
  private chunks: string[] = [];
  private size = 0;
  private truncated = false;

  constructor(
    private readonly onLine: ((line: string) => void) | undefined,
    private readonly maxBuffer: number,
  ) {}

  push(data: Buffer | string): void {
    const text = typeof data === "string" ? data : this.decoder.write(data);
    this.keep(text);
    if (!this.onLine) return;
    this.partial += text;
    let i: number;
    while ((i = this.partial.indexOf("\n")) >= 0) {
      const line = this.partial.slice(0, i);
      this.partial = this.partial.slice(i + 1);
      this.emit(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
  }

  /** Flush the last unterminated line; returns the collected text. */
  end(): string {
    const rest = this.decoder.end();
    if (rest) this.push(rest);
    if (this.onLine && this.partial) this.emit(this.partial);
    this.partial = "";
    const all = this.chunks.join("");
    return this.truncated ? `[output truncated]\n${all}` : all;
  }

  private emit(line: string): void {
    try {
      this.onLine?.(line);
    } catch {
      // A failing log sink must not kill the command it is watching.
    }
  }

  private keep(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.maxBuffer && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
      this.truncated = true;
    }
    if (this.size > this.maxBuffer && this.chunks.length === 1) {
      this.chunks[0] = this.chunks[0]!.slice(this.size - this.maxBuffer);
      this.size = this.maxBuffer;
      this.truncated = true;
    }
  }
}
