/**
 * Names are references (decisions.md section 13): ticket type and input field names are unique per event, trimmed,
 * case-sensitive and comma-free, and lists such as `personalise`, `layout` and a scan key's `tickets` hold them
 * comma-separated. These are the plain rules about such names and lists.
 */

/** Names taken from the order itself in a ticket's layout; no input field may be called this. */
export const LAYOUT_ORDER_NAMES = ["Order-id", "Name", "Email"] as const;

const MAX_LAYOUT_NAMES = 6;

/** `"a, b,,c"` -> `["a", "b", "c"]`. */
export function parseNameList(csv: string): string[] {
  return csv
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export function formatNameList(names: readonly string[]): string {
  return names.join(",");
}

export interface InputFieldRef {
  name: string;
  isPersonalised: boolean;
}

/** Problems of a `personalise` list: every name an input field of the event that is personalised. */
export function personaliseProblem(names: readonly string[], fields: readonly InputFieldRef[]): string | null {
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const name of names) {
    const field = byName.get(name);
    if (!field) return `"${name}" is not an input field of this event`;
    if (!field.isPersonalised) return `input field "${name}" is not personalised (is_personalised is false)`;
  }
  if (new Set(names).size !== names.length) return "names an input field twice";
  return null;
}

/** Problems of a `layout` list: at most 6 names, each an input field or Order-id, Name, Email. */
export function layoutProblem(names: readonly string[], fields: readonly InputFieldRef[]): string | null {
  if (names.length > MAX_LAYOUT_NAMES) return `must name at most ${MAX_LAYOUT_NAMES} fields`;
  const known = new Set<string>([...LAYOUT_ORDER_NAMES, ...fields.map((f) => f.name)]);
  for (const name of names) if (!known.has(name)) return `"${name}" is neither an input field of this event nor Order-id, Name or Email`;
  if (new Set(names).size !== names.length) return "names a field twice";
  return null;
}

/** Problems of a scan key's or coupon's `tickets` list: every name a ticket type of the event. */
export function ticketTypeListProblem(names: readonly string[], typeNames: readonly string[]): string | null {
  const known = new Set(typeNames);
  for (const name of names) if (!known.has(name)) return `"${name}" is not a ticket type of this event`;
  return null;
}
