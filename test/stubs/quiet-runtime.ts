/**
 * workerd's own lines that the suite provokes on purpose, kept out of a green run's output so that it looks
 * green. They cannot be captured where they happen, as `expectLogged` (test/helpers/logs.ts) captures the service's
 * log lines: workerd writes them itself, and the Cloudflare plugin copies them to this process's stdout or stderr,
 * past any console in the test. The plugin drops a list of such runtime lines itself (its
 * `ignoreMessages`); these are ours, each with the tests that provoke it. Anything else workerd writes still shows.
 */
const EXPECTED: readonly RegExp[] = [
  // workerd logs a failed outbound connection as an uncaught exception even when the fetch's rejection is
  // handled (src/lib/outbound.ts catches it): the unreachable reCAPTCHA verifier, email API and webhook receiver
  // of test/features/checkout/captcha.test.ts, test/features/messaging/emails.test.ts and webhooks.routes.test.ts.
  /disconnected: (Connection refused \(os error 111\)|client error \(SendRequest\))|Network connection lost\./,
  // The hostile-input test sends header values with bytes above 0x7F, as a client that does not follow the
  // Fetch standard can; workerd warns once per such header that a browser would refuse it.
  /^A header value for "[^"]*" contains non-ASCII characters/,
  // The hostile-input test also posts multipart bodies under a Content-Type of its own choosing (a wrong boundary,
  // another type), which workerd warns the recipient may not parse: the route's refusal is what is tested.
  /^A FormData body was provided with a custom Content-Type header/,
];

/** Whether a chunk workerd wrote is one of the expected lines (every line of it: a chunk with anything else shows). */
function isExpectedRuntimeNoise(chunk: string): boolean {
  const lines = chunk.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return false;
  // A logged exception is followed by its native stack ("stack: .../workerd@..."), which belongs to it.
  const known = lines.filter((line) => !/^stack: \S*workerd/.test(line));
  return known.length > 0 && known.every((line) => EXPECTED.some((pattern) => pattern.test(line)));
}

/**
 * Leaves out of this process's output the runtime lines the suite provokes on purpose (see EXPECTED). The plugin
 * writes workerd's lines to stdout or stderr by their level, so both are filtered.
 */
export function quietExpectedRuntimeLines(): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("utf8") : null;
      if (text !== null && isExpectedRuntimeNoise(text)) return true;
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}
