/** A benchmark's entry: exit 0 when `main` resolves, print the error and exit 1 when it throws. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
