/**
 * `_fields=a,b`: keeps only the named top-level fields. `_links` stays only when named; `_embedded` stays when
 * named or when `_embed` asked for it (asking to embed and then dropping the result would make no sense).
 * Unknown names are ignored.
 */
export function parseFields(raw: string | undefined): ReadonlySet<string> | null {
  if (raw === undefined) return null;
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length === 0 ? null : new Set(names);
}

export function pickFields<T>(value: T, fields: ReadonlySet<string> | null, keepEmbedded: boolean): T {
  if (fields === null) return value;
  if (Array.isArray(value)) return value.map((item) => pickFields(item, fields, keepEmbedded)) as T;
  if (value === null || typeof value !== "object") return value;
  const picked: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (fields.has(key) || (key === "_embedded" && keepEmbedded)) picked[key] = v;
  }
  return picked as T;
}
