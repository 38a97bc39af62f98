type Level = "debug" | "info" | "warn" | "error";

/**
 * One structured JSON line per call. Callers pass identifiers (request id, user id, route pattern),
 * never secrets, passwords, capability keys or personal data beyond an email address.
 */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
