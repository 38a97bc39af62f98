import { onTestFinished, vi } from "vitest";

/**
 * For a test that provokes a log line on purpose: the lines at `level` matching one of `expected` are kept (and not
 * printed, so a green run stays quiet), every other line is printed as before, so an unexpected error still shows.
 * Answers the kept lines (`lines`) for the test to assert on, and every line at `level` (`all`, kept or printed);
 * the console is restored when the test ends.
 */
export function expectLogged(level: "error" | "warn", ...expected: RegExp[]): { lines: string[]; all: string[] } {
  const original = console[level];
  const logged = { lines: [] as string[], all: [] as string[] };
  const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
    const line = args.map(String).join(" ");
    logged.all.push(line);
    if (expected.some((pattern) => pattern.test(line))) logged.lines.push(line);
    else original.apply(console, args);
  });
  onTestFinished(() => spy.mockRestore());
  return logged;
}
