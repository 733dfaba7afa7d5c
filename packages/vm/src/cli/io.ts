/** Where the CLI writes and how it asks; injectable for tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  isTTY: boolean;
  ask(question: string): Promise<string>;
  env: Record<string, string | undefined>;
}
