/**
 * The exit code of a finished command. A rejection that escapes the command (a failing close after
 * the work) is one error line and code 1, never an unhandled rejection with a stack trace.
 */
export async function exitCodeOf(run: Promise<number>, stderr: (text: string) => void): Promise<number> {
  try {
    return await run;
  } catch (e) {
    stderr(`error: ${e instanceof Error ? e.message : "unexpected failure"}\n`);
    return 1;
  }
}
