import { onTestFinished, vi } from "vitest";

type Logged = { lines: string[]; all: string[] };

/** Keeps the lines at `level` matching `expected` (not printed); prints every other line as before. */
function capture(level: "error" | "warn", expected: readonly RegExp[]): { logged: Logged; restore: () => void } {
  const original = console[level];
  const logged: Logged = { lines: [], all: [] };
  const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
    const line = args.map(String).join(" ");
    logged.all.push(line);
    if (expected.some((pattern) => pattern.test(line))) logged.lines.push(line);
    else original.apply(console, args);
  });
  return { logged, restore: () => spy.mockRestore() };
}

/**
 * For a test that provokes a log line on purpose: the lines at `level` matching one of `expected` are kept (and not
 * printed, so a green run stays quiet), every other line is printed as before, so an unexpected error still shows.
 * Answers the kept lines (`lines`) for the test to assert on, and every line at `level` (`all`, kept or printed);
 * the console is restored when the test ends.
 */
export function expectLogged(level: "error" | "warn", ...expected: RegExp[]): Logged {
  const { logged, restore } = capture(level, expected);
  onTestFinished(restore);
  return logged;
}

/** `expectLogged` around `work` alone, for a hook (`beforeAll`) that provokes the lines: restored when it ends. */
export async function whileLogging<T>(level: "error" | "warn", expected: readonly RegExp[], work: (logged: Logged) => Promise<T>): Promise<T> {
  const { logged, restore } = capture(level, expected);
  try {
    return await work(logged);
  } finally {
    restore();
  }
}
