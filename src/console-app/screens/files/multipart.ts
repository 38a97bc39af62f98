/**
 * A multipart body for openapi-fetch: the named parts, files as files, leaving out what is undefined (an empty file
 * input: the API keeps what it has). The browser sets the Content-Type with its boundary itself.
 */
export function multipart(parts: Readonly<Record<string, string | Blob | undefined>>): () => FormData {
  return () => {
    const form = new FormData();
    for (const [name, value] of Object.entries(parts)) if (value !== undefined) form.append(name, value);
    return form;
  };
}
