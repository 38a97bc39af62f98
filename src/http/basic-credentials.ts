export interface BasicCredentials {
  username: string;
  password: string;
}

/** `Authorization: Basic base64(username:password)`, or null when absent or malformed. */
export function parseBasicCredentials(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const m = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header);
  if (!m) return null;
  let decoded: string;
  try {
    const bytes = Uint8Array.from(atob(m[1]!), (ch) => ch.charCodeAt(0));
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  if (colon <= 0) return null;
  const password = decoded.slice(colon + 1);
  if (password === "") return null;
  return { username: decoded.slice(0, colon), password };
}
