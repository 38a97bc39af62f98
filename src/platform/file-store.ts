import type { Env } from "../env";

/** The seam over R2: the few operations the service uses, so no service holds the bucket binding itself. */
export interface FileStore {
  /** `contentDisposition` is kept with the object and given back by `get`, for answering straight from R2. */
  put(key: string, body: ArrayBuffer | Uint8Array | string, contentType: string, contentDisposition?: string): Promise<void>;
  /** The object's body, or null when there is none. */
  get(key: string): Promise<StoredFile | null>;
  getBytes(key: string): Promise<Uint8Array | null>;
  delete(keys: string | string[]): Promise<void>;
  /** Every key under `prefix` (listing page by page). */
  list(prefix: string): Promise<string[]>;
  /** Every object under `prefix` with when it was written (epoch seconds). */
  entries(prefix: string): Promise<StoredEntry[]>;
  /** Whether an object is stored under `key` (a HEAD: its body is not read). */
  has(key: string): Promise<boolean>;
}

export interface StoredEntry {
  key: string;
  /** When it was written, in epoch seconds. */
  uploaded: number;
}

interface StoredFile {
  body: ReadableStream;
  size: number;
  contentType: string;
  contentDisposition?: string;
}

export function fileStoreFrom(env: Pick<Env, "FILES">): FileStore {
  const bucket = env.FILES;
  const entries = async (prefix: string) => {
    const found: StoredEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, cursor });
      found.push(...page.objects.map((o) => ({ key: o.key, uploaded: Math.floor(o.uploaded.getTime() / 1000) })));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return found;
  };
  return {
    async put(key, body, contentType, contentDisposition) {
      await bucket.put(key, body, { httpMetadata: { contentType, contentDisposition } });
    },
    async get(key) {
      const object = await bucket.get(key);
      if (!object) return null;
      const { contentType = "application/octet-stream", contentDisposition } = object.httpMetadata ?? {};
      return { body: object.body, size: object.size, contentType, contentDisposition };
    },
    async getBytes(key) {
      const object = await bucket.get(key);
      return object ? new Uint8Array(await object.arrayBuffer()) : null;
    },
    async delete(keys) {
      const list = Array.isArray(keys) ? keys : [keys];
      for (let i = 0; i < list.length; i += 1000) await bucket.delete(list.slice(i, i + 1000));
    },
    async list(prefix) {
      return (await entries(prefix)).map((e) => e.key);
    },
    entries,
    async has(key) {
      return (await bucket.head(key)) !== null;
    },
  };
}
