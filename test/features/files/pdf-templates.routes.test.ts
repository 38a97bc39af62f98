import { env, exports } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { PageSizes, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { events as eventsTable, pdfTemplates } from "../../../src/db/schema";
import { ADMIN, API_KEY, BASE, basic, call, createUser, expectError, expectJson, unique, type Credentials } from "../../helpers/api";
import { createEvent, createTicketType, db } from "../../helpers/catalogue";
import { expectLogged } from "../../helpers/logs";
import { deflatedZeros, MiB, pdfWithObjects, pdfWithStreams } from "../../helpers/packed-pdfs";
import { deepPageTree, fanOutPageTree, flatPageTree, loopingPageTree, parentLoopPageTree, sharedKidPageTree } from "../../helpers/page-trees";
import { encryptPdf, makePdf, upload, type UploadOptions } from "../../helpers/uploads";
import { wallClockAt } from "../../helpers/wall-clock";

// ---------------------------------------------------------------------------------------------------------------
// Helpers local to this file
// ---------------------------------------------------------------------------------------------------------------

const TEMPLATE_FIELDS = ["_links", "author_id", "created", "id", "modified", "title", "type", "url", "username"];
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const FILE_KEY = /^templates\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.pdf$/;
const UPLOAD_LIMIT = 10 * 1024 * 1024;
const MISSING_ID = 987654321;

/** One one-page A4 PDF shared by the tests that only need "a valid template". */
const validPdf = makePdf(1, { text: "shared template" });

let adminIdCache: number | undefined;
async function adminId(): Promise<number> {
  if (adminIdCache === undefined) {
    const users = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    adminIdCache = users.find((u) => u.username === ADMIN.username)!.id as number;
  }
  return adminIdCache;
}

async function createTemplate(options: { title?: string; pdf?: Uint8Array; auth?: Credentials; fields?: Record<string, string | number> } = {}) {
  const pdf = options.pdf ?? (await validPdf);
  const body = await expectJson(
    upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: options.title ?? unique("Template "), ...options.fields }, auth: options.auth }),
    201,
  );
  return { body, pdf, id: body.id as number };
}

const path = (id: number | string, suffix = "") => `/admin/pdf-templates/${id}${suffix}`;

/** The template's R2 key, read from D1 (undefined when the row is gone). */
async function fileKeyOf(id: number): Promise<string | undefined> {
  const row = await db.select({ fileKey: pdfTemplates.fileKey }).from(pdfTemplates).where(eq(pdfTemplates.id, id)).get();
  return row?.fileKey;
}

async function r2Keys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ prefix: "templates/", cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

async function r2Bytes(key: string): Promise<Uint8Array | null> {
  const object = await env.FILES.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

/** Rows in D1 and objects in R2, to show that a refused request stored nothing. */
async function storage() {
  const row = await db.select({ n: sql<number>`count(*)` }).from(pdfTemplates).get();
  return { rows: row!.n, keys: await r2Keys() };
}

async function expectNothingStored(before: Awaited<ReturnType<typeof storage>>) {
  expect(await storage()).toEqual(before);
}

/** GET of a template's absolute `url`, through the API with the given credentials. */
function getUrl(url: string, auth?: Credentials | null, key?: string | null) {
  expect(url.startsWith(BASE)).toBe(true);
  return call("GET", url.slice(BASE.length), { auth, key });
}

async function expectServed(url: string, bytes: Uint8Array, auth?: Credentials) {
  const res = await getUrl(url, auth);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/pdf");
  expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
}

/** `YYYY-MM-DD HH:MM:SS` of now in a time zone. */
function wallNow(timeZone: string): string {
  return wallClockAt(Date.now(), timeZone);
}

const wallMs = (s: string) => Date.parse(`${s.replace(" ", "T")}Z`);

function putJson(id: number | string, body: unknown, auth?: Credentials | null) {
  return call("PUT", path(id), { body, auth });
}

function putForm(id: number | string, options: UploadOptions) {
  return upload("PUT", path(id), options);
}

// ---------------------------------------------------------------------------------------------------------------
// Test files
// ---------------------------------------------------------------------------------------------------------------

describe("test PDFs", () => {
  it("makePdf makes real A4 PDFs with the requested number of pages", async () => {
    const one = await PDFDocument.load(await makePdf());
    expect(one.getPageCount()).toBe(1);
    const [width, height] = PageSizes.A4;
    expect(one.getPage(0).getSize()).toEqual({ width, height });
    expect((await PDFDocument.load(await makePdf(2))).getPageCount()).toBe(2);
    expect((await PDFDocument.load(await makePdf(0))).getPageCount()).toBe(0);
  });

  it("encryptPdf makes a PDF that pdf-lib refuses as encrypted", async () => {
    const encrypted = await encryptPdf(await makePdf());
    await expect(PDFDocument.load(encrypted)).rejects.toThrow(/is encrypted/);
    const ignored = await PDFDocument.load(encrypted, { ignoreEncryption: true });
    expect(ignored.isEncrypted).toBe(true);
    expect(ignored.getPageCount()).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// POST
// ---------------------------------------------------------------------------------------------------------------

describe("POST /admin/pdf-templates", () => {
  it("stores a one-page A4 PDF: 201, Location, the template shape, the object in R2 and the file at url", async () => {
    const pdf = await makePdf(1, { text: "Concert ticket" });
    const title = unique("Concert ");
    const before = await r2Keys();
    const res = await upload("POST", "/admin/pdf-templates", { file: pdf, filename: "concert.pdf", fields: { title } });
    const body = await expectJson(res, 201);

    expect(Number.isInteger(body.id) && body.id > 0).toBe(true);
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/pdf-templates/${body.id}`);
    expect(Object.keys(body).sort()).toEqual(TEMPLATE_FIELDS);
    expect(body).toEqual({
      id: body.id,
      title,
      type: "ticket",
      author_id: await adminId(),
      created: body.created,
      modified: body.created,
      url: `${BASE}/admin/pdf-templates/${body.id}/file`,
      username: ADMIN.username,
      _links: {
        self: [{ href: `${BASE}/admin/pdf-templates/${body.id}` }],
        collection: [{ href: `${BASE}/admin/pdf-templates` }],
      },
    });
    expect(body.created).toMatch(DATE_TIME);
    // Shown in the service's time zone (Europe/Amsterdam in the tests).
    expect(Math.abs(wallMs(body.created) - wallMs(wallNow("Europe/Amsterdam")))).toBeLessThan(10_000);

    // The object in R2, under the key D1 names, holds the uploaded bytes.
    const key = (await fileKeyOf(body.id))!;
    expect(key).toMatch(FILE_KEY);
    expect(await r2Keys()).toEqual([...before, key].sort());
    const object = await env.FILES.get(key);
    expect(object?.httpMetadata?.contentType).toBe("application/pdf");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(pdf);

    // Its url serves those bytes, and the template reads back as created.
    const file = await getUrl(body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(file.headers.get("Content-Length")).toBe(String(pdf.length));
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(pdf);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
  });

  it("trims the title and accepts type invoice; a page size other than A4 is kept", async () => {
    const letter = await makePdf(1, { size: PageSizes.Letter });
    const { body } = await createTemplate({ title: "  Invoice layout  ", pdf: letter, fields: { type: "invoice" } });
    expect(body).toMatchObject({ title: "Invoice layout", type: "invoice" });
    await expectServed(body.url, letter);
  });

  it("makes an organizer's upload its own", async () => {
    const organizer = await createUser("organizer");
    const { body } = await createTemplate({ auth: organizer.credentials });
    expect(body).toMatchObject({ author_id: organizer.id, username: organizer.username, type: "ticket" });
    await expectServed(body.url, await validPdf, organizer.credentials);
  });

  // The last element: whether pdf-lib warns on the console while reading the file (it does for the truncated
  // object it tries to recover), which the test then expects instead of printing.
  const refusedFiles: [string, () => Promise<UploadOptions>, RegExp, boolean][] = [
    ["a text file named .pdf", async () => ({ file: "Just some text, not a PDF.\n", filename: "ticket.pdf", type: "application/pdf" }), /PDF/, false],
    ["an encrypted PDF", async () => ({ file: await encryptPdf(await makePdf()) }), /./, false],
    ["a two-page PDF", async () => ({ file: await makePdf(2) }), /one page/, false],
    ["a PDF without pages", async () => ({ file: await makePdf(0) }), /one page/, false],
    ["an empty file", async () => ({ file: new Uint8Array(0) }), /./, false],
    [
      "truncated PDF bytes",
      async () => {
        const pdf = await makePdf(1, { text: "truncated" });
        return { file: pdf.slice(0, Math.floor(pdf.length / 2)) };
      },
      /./,
      true,
    ],
    ["a PDF header followed by garbage", async () => ({ file: "%PDF-1.7\nthis is not a PDF body at all\n" }), /./, false],
  ];

  it.each(refusedFiles)("refuses %s with 400 naming file and stores nothing", async (_name, build, message, warns) => {
    const pdfLibWarnings = expectLogged("warn", /^Trying to parse invalid object: |^Invalid object ref: /);
    const before = await storage();
    const err = await expectError(upload("POST", "/admin/pdf-templates", { ...(await build()), fields: { title: "Refused" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["file"]);
    expect(err.data.params!.file).toMatch(message);
    await expectNothingStored(before);
    expect(pdfLibWarnings.lines.length > 0).toBe(warns);
  });

  it("tells the uploader that an encrypted PDF is refused because it is encrypted", async () => {
    const err = await expectError(
      upload("POST", "/admin/pdf-templates", { file: await encryptPdf(await makePdf()), fields: { title: "Encrypted" } }),
      400,
      "rest_invalid_param",
    );
    expect(err.data.params!.file).toMatch(/encrypted/i);
  });

  it.each([
    ["file", { title: true, file: false }],
    ["title", { title: false, file: true }],
  ] as const)("refuses an upload without %s (rest_missing_callback_param) and stores nothing", async (missing, parts) => {
    const before = await storage();
    const options: UploadOptions = { fields: parts.title ? { title: "Half an upload" } : {}, file: parts.file ? await validPdf : null };
    const err = await expectError(upload("POST", "/admin/pdf-templates", options), 400, "rest_missing_callback_param");
    expect(err.data.params).toEqual({ [missing]: expect.any(String) });
    await expectNothingStored(before);
  });

  it("names both parts when neither title nor file is sent", async () => {
    const err = await expectError(upload("POST", "/admin/pdf-templates", { fields: {} }), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params!).sort()).toEqual(["file", "title"]);
  });

  it.each([
    ["colour", { colour: "red" }],
    ["file", { file: "a text part, not a file part" }],
    ["title", { title: "   " }],
    ["title", { title: "t".repeat(201) }],
    ["type", { type: "letter" }],
    ["author_id", { author_id: "abc" }],
    ["author_id", { author_id: 0 }],
    ["id", { id: 5 }],
    ["url", { url: "http://elsewhere.test/x.pdf" }],
  ] as const)("refuses an invalid or unknown part %s with 400 and stores nothing", async (field, override) => {
    const before = await storage();
    const withTextFile = "file" in override;
    const fields: Record<string, string | number> = { title: "Part test", ...override };
    const err = await expectError(upload("POST", "/admin/pdf-templates", { fields, file: withTextFile ? undefined : await validPdf }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
    await expectNothingStored(before);
  });

  it("refuses a JSON or url-encoded body with 415", async () => {
    const before = await storage();
    await expectError(call("POST", "/admin/pdf-templates", { body: { title: "JSON", file: "JVBERi0=" } }), 415, "rest_unsupported_media_type");
    await expectError(
      call("POST", "/admin/pdf-templates", { body: "title=Form", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "rest_unsupported_media_type",
    );
    await expectNothingStored(before);
  });

  it("lets an administrator name an existing owner, and refuses one that does not exist", async () => {
    const organizer = await createUser("organizer");
    const { body } = await createTemplate({ fields: { author_id: organizer.id } });
    expect(body).toMatchObject({ author_id: organizer.id, username: organizer.username });
    const mine = await expectJson<any[]>(call("GET", "/admin/pdf-templates", { auth: organizer.credentials }), 200);
    expect(mine.map((t) => t.id)).toEqual([body.id]);

    const before = await storage();
    const err = await expectError(
      upload("POST", "/admin/pdf-templates", { file: await validPdf, fields: { title: "Nobody's", author_id: MISSING_ID } }),
      400,
      "rest_invalid_param",
    );
    expect(Object.keys(err.data.params!)).toEqual(["author_id"]);
    await expectNothingStored(before);
  });

  it("refuses an organizer's upload for another owner (403) and accepts its own id", async () => {
    const organizer = await createUser("organizer");
    const before = await storage();
    await expectError(
      upload("POST", "/admin/pdf-templates", { file: await validPdf, fields: { title: "Theirs", author_id: await adminId() }, auth: organizer.credentials }),
      403,
      "rest_forbidden",
    );
    await expectNothingStored(before);
    const { body } = await createTemplate({ auth: organizer.credentials, fields: { author_id: organizer.id } });
    expect(body.author_id).toBe(organizer.id);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// GET
// ---------------------------------------------------------------------------------------------------------------

describe("GET /admin/pdf-templates", () => {
  it("shows an organizer only its own templates and an administrator all of them", async () => {
    const organizer = await createUser("organizer");
    const other = await createUser("organizer");
    const own = [await createTemplate({ auth: organizer.credentials }), await createTemplate({ auth: organizer.credentials })];
    const foreign = [await createTemplate({ auth: other.credentials }), await createTemplate()];

    const res = await call("GET", "/admin/pdf-templates", { auth: organizer.credentials });
    const list = await expectJson<any[]>(res, 200);
    expect(list.map((t) => t.id).sort((a, b) => a - b)).toEqual(own.map((t) => t.id));
    expect(list.find((t) => t.id === own[0]!.id)).toEqual(own[0]!.body);
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");

    const adminRes = await call("GET", "/admin/pdf-templates");
    const all = await expectJson<any[]>(adminRes, 200);
    for (const t of [...own, ...foreign]) expect(all.find((x) => x.id === t.id)).toEqual(t.body);
    const rows = await db.select({ n: sql<number>`count(*)` }).from(pdfTemplates).get();
    expect(all).toHaveLength(rows!.n);
    expect(adminRes.headers.get("X-WP-Total")).toBe(String(rows!.n));
    expect(adminRes.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("answers an organizer without templates with an empty list, X-WP-Total 0 and X-WP-TotalPages 1", async () => {
    await createTemplate();
    const organizer = await createUser("organizer");
    const res = await call("GET", "/admin/pdf-templates", { auth: organizer.credentials });
    expect(await expectJson(res, 200)).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("keeps only the fields named in _fields", async () => {
    const { id } = await createTemplate();
    const list = await expectJson<any[]>(call("GET", "/admin/pdf-templates?_fields=id,title"), 200);
    expect(list.length).toBeGreaterThan(0);
    for (const t of list) expect(Object.keys(t).sort()).toEqual(["id", "title"]);
    expect(Object.keys(await expectJson(call("GET", `${path(id)}?_fields=url,username`), 200)).sort()).toEqual(["url", "username"]);
  });
});

describe("GET /admin/pdf-templates/<id> and its file", () => {
  it("lets an administrator read another user's template and file", async () => {
    const organizer = await createUser("organizer");
    const { body, pdf } = await createTemplate({ auth: organizer.credentials, pdf: await makePdf(1, { text: "organizer's" }) });
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
    await expectServed(body.url, pdf);
  });

  it("answers 404 rest_pdf_template_invalid_id for unknown and malformed ids on every route", async () => {
    for (const id of [MISSING_ID, "abc", 0, -1]) {
      await expectError(call("GET", path(id)), 404, "rest_pdf_template_invalid_id");
      await expectError(call("GET", path(id, "/file")), 404, "rest_pdf_template_invalid_id");
      await expectError(putJson(id, { title: "x" }), 404, "rest_pdf_template_invalid_id");
      await expectError(putForm(id, { fields: { title: "x" }, file: await validPdf }), 404, "rest_pdf_template_invalid_id");
      await expectError(call("DELETE", path(id)), 404, "rest_pdf_template_invalid_id");
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Owner rules
// ---------------------------------------------------------------------------------------------------------------

describe("another user's template", () => {
  it("is 403 rest_forbidden to an organizer on GET, file, PUT and DELETE, and stays as it was", async () => {
    const owner = await createUser("organizer");
    const intruder = await createUser("organizer");
    const { body, pdf } = await createTemplate({ auth: owner.credentials, pdf: await makePdf(1, { text: "owned" }) });
    const as = intruder.credentials;
    const before = await storage();

    await expectError(call("GET", path(body.id), { auth: as }), 403, "rest_forbidden");
    await expectError(getUrl(body.url, as), 403, "rest_forbidden");
    await expectError(putJson(body.id, { title: "Taken over" }, as), 403, "rest_forbidden");
    await expectError(putForm(body.id, { fields: { title: "Taken over" }, file: await makePdf(1, { text: "intruder" }), auth: as }), 403, "rest_forbidden");
    await expectError(call("DELETE", path(body.id), { auth: as }), 403, "rest_forbidden");

    await expectNothingStored(before);
    expect(await expectJson(call("GET", path(body.id), { auth: owner.credentials }), 200)).toEqual(body);
    await expectServed(body.url, pdf, owner.credentials);
  });

  it("of an administrator is 403 to an organizer too", async () => {
    const organizer = await createUser("organizer");
    const { body } = await createTemplate();
    await expectError(call("GET", path(body.id), { auth: organizer.credentials }), 403, "rest_forbidden");
    await expectError(getUrl(body.url, organizer.credentials), 403, "rest_forbidden");
  });

  it("can be changed and deleted by an administrator", async () => {
    const organizer = await createUser("organizer");
    const { body } = await createTemplate({ auth: organizer.credentials });
    const changed = await expectJson(putJson(body.id, { title: "Changed by admin" }), 200);
    expect(changed).toMatchObject({ title: "Changed by admin", author_id: organizer.id, username: organizer.username });
    const res = await expectJson(call("DELETE", path(body.id)), 200);
    expect(res.deleted).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// PUT
// ---------------------------------------------------------------------------------------------------------------

describe("PUT /admin/pdf-templates/<id>", () => {
  it("changes title and type with JSON and keeps the file", async () => {
    const { body, pdf } = await createTemplate({ pdf: await makePdf(1, { text: "json put" }) });
    const key = await fileKeyOf(body.id);
    const updated = await expectJson(putJson(body.id, { title: " Renamed ", type: "invoice" }), 200);
    expect(Object.keys(updated).sort()).toEqual(TEMPLATE_FIELDS);
    expect(updated).toEqual({ ...body, title: "Renamed", type: "invoice", modified: updated.modified });
    expect(updated.modified).toMatch(DATE_TIME);
    expect(updated.modified >= body.modified).toBe(true);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(updated);
    expect(await fileKeyOf(body.id)).toBe(key);
    await expectServed(updated.url, pdf);

    // And back to ticket.
    expect((await expectJson(putJson(body.id, { type: "ticket" }), 200)).type).toBe("ticket");
  });

  it("replaces the file with multipart: the new bytes are served and the old object is gone", async () => {
    const { body, pdf } = await createTemplate({ pdf: await makePdf(1, { text: "version 1" }) });
    const oldKey = (await fileKeyOf(body.id))!;
    const replacement = await makePdf(1, { text: "version 2" });
    expect(replacement).not.toEqual(pdf);

    const updated = await expectJson(putForm(body.id, { file: replacement, fields: { title: "Version 2" } }), 200);
    expect(updated).toEqual({ ...body, title: "Version 2", modified: updated.modified });
    expect(updated.modified >= body.modified).toBe(true);

    const newKey = (await fileKeyOf(body.id))!;
    expect(newKey).toMatch(FILE_KEY);
    expect(newKey).not.toBe(oldKey);
    expect(await env.FILES.get(oldKey)).toBeNull();
    const keys = await r2Keys();
    expect(keys).not.toContain(oldKey);
    expect(keys).toContain(newKey);
    expect(await r2Bytes(newKey)).toEqual(replacement);
    await expectServed(updated.url, replacement);
  });

  it("replaces only the file when multipart carries nothing else, and only the title without a file", async () => {
    const { body } = await createTemplate({ title: "Keeps its title" });
    const replacement = await makePdf(1, { text: "file only" });
    const fileOnly = await expectJson(putForm(body.id, { file: replacement }), 200);
    expect(fileOnly.title).toBe("Keeps its title");
    await expectServed(body.url, replacement);
    const key = await fileKeyOf(body.id);
    const titleOnly = await expectJson(putForm(body.id, { fields: { title: "Form title", type: "invoice" } }), 200);
    expect(titleOnly).toMatchObject({ title: "Form title", type: "invoice" });
    expect(await fileKeyOf(body.id)).toBe(key);
    await expectServed(body.url, replacement);
  });

  it("accepts read-only fields equal to the stored ones and what a GET returned", async () => {
    const { body } = await createTemplate();
    const read = await expectJson(call("GET", path(body.id)), 200);
    const { id, created, modified, url, username } = read;
    const same = await expectJson(putJson(body.id, { id, created, modified, url, username }), 200);
    expect(same).toEqual({ ...read, modified: same.modified });

    const again = await expectJson(call("GET", path(body.id)), 200);
    const back = await expectJson(putJson(body.id, { ...again, title: "Put back" }), 200);
    expect(back).toEqual({ ...again, title: "Put back", modified: back.modified });
  });

  it.each([
    ["id", (t: any) => t.id + 1],
    ["created", () => "2001-01-01 00:00:00"],
    ["modified", () => "2001-01-01 00:00:00"],
    ["url", (t: any) => `${t.url}x`],
    ["username", () => "someone-else"],
  ] as const)("refuses a changed read-only field %s and changes nothing", async (field, value) => {
    const { body } = await createTemplate();
    const err = await expectError(putJson(body.id, { title: "Should not stick", [field]: value(body) }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
  });

  it("refuses invalid values, unknown fields and non-JSON bodies, changing nothing", async () => {
    const { body } = await createTemplate();
    for (const [field, value] of [
      ["title", ""],
      ["title", 42],
      ["type", "letter"],
      ["author_id", "abc"],
      ["author_id", -3],
      ["file", "JVBERi0xLjcK"],
      ["colour", "red"],
    ] as const) {
      const err = await expectError(putJson(body.id, { [field]: value }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([field]);
    }
    await expectError(putForm(body.id, { fields: { colour: "red" } }), 400, "rest_invalid_param");
    await expectError(putJson(body.id, "{not json"), 400, "rest_invalid_json");
    await expectError(
      call("PUT", path(body.id), { body: "title=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "rest_unsupported_media_type",
    );
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
  });

  it.each([
    ["a text file", async () => new TextEncoder().encode("not a pdf")],
    ["a two-page PDF", () => makePdf(2)],
    ["an encrypted PDF", async () => encryptPdf(await makePdf())],
    ["an empty file", async () => new Uint8Array(0)],
    ["a PDF header followed by garbage", async () => new TextEncoder().encode("%PDF-1.7\nthis is not a PDF body at all\n")],
  ] as const)("refuses %s as a replacement and keeps serving the old file", async (_name, build) => {
    const { body, pdf } = await createTemplate({ pdf: await makePdf(1, { text: "keep me" }) });
    const key = await fileKeyOf(body.id);
    const before = await storage();
    const err = await expectError(putForm(body.id, { file: await build(), fields: { title: "Should not stick" } }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["file"]);
    await expectNothingStored(before);
    expect(await fileKeyOf(body.id)).toBe(key);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
    await expectServed(body.url, pdf);
  });
});

describe("author_id", () => {
  it("may be changed by an administrator to an existing user; the new owner then has it", async () => {
    const from = await createUser("organizer");
    const to = await createUser("organizer");
    const { body } = await createTemplate({ auth: from.credentials });
    const moved = await expectJson(putJson(body.id, { author_id: to.id }), 200);
    expect(moved).toMatchObject({ author_id: to.id, username: to.username, title: body.title });

    const toList = await expectJson<any[]>(call("GET", "/admin/pdf-templates", { auth: to.credentials }), 200);
    expect(toList.map((t) => t.id)).toContain(body.id);
    const fromRes = await call("GET", "/admin/pdf-templates", { auth: from.credentials });
    expect((await expectJson<any[]>(fromRes, 200)).map((t) => t.id)).not.toContain(body.id);
    expect(fromRes.headers.get("X-WP-Total")).toBe("0");
    await expectError(call("GET", path(body.id), { auth: from.credentials }), 403, "rest_forbidden");
    await expectJson(call("GET", path(body.id), { auth: to.credentials }), 200);

    // Multipart too, as a form part.
    const back = await expectJson(putForm(body.id, { fields: { author_id: from.id } }), 200);
    expect(back).toMatchObject({ author_id: from.id, username: from.username });
  });

  it("refuses a user that does not exist with 400 and changes nothing", async () => {
    const { body } = await createTemplate();
    const err = await expectError(putJson(body.id, { author_id: MISSING_ID, title: "Should not stick" }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["author_id"]);
    const formErr = await expectError(putForm(body.id, { fields: { author_id: MISSING_ID } }), 400, "rest_invalid_param");
    expect(Object.keys(formErr.data.params!)).toEqual(["author_id"]);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
  });

  it("is 403 rest_forbidden when an organizer sends another id, and accepted when it sends its own", async () => {
    const organizer = await createUser("organizer");
    const other = await createUser("organizer");
    const { body, pdf } = await createTemplate({ auth: organizer.credentials, pdf: await makePdf(1, { text: "organizer owner" }) });
    const as = organizer.credentials;
    const before = await storage();

    for (const id of [other.id, await adminId(), MISSING_ID]) {
      await expectError(putJson(body.id, { author_id: id, title: "Should not stick" }, as), 403, "rest_forbidden");
    }
    await expectError(putForm(body.id, { fields: { author_id: other.id }, file: await makePdf(1, { text: "nope" }), auth: as }), 403, "rest_forbidden");
    await expectNothingStored(before);
    expect(await expectJson(call("GET", path(body.id), { auth: as }), 200)).toEqual(body);
    await expectServed(body.url, pdf, as);

    const own = await expectJson(putJson(body.id, { author_id: organizer.id, title: "Own id" }, as), 200);
    expect(own).toMatchObject({ author_id: organizer.id, username: organizer.username, title: "Own id" });
    const ownForm = await expectJson(putForm(body.id, { fields: { author_id: organizer.id, title: "Own id form" }, auth: as }), 200);
    expect(ownForm).toMatchObject({ author_id: organizer.id, title: "Own id form" });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// DELETE
// ---------------------------------------------------------------------------------------------------------------

describe("DELETE /admin/pdf-templates/<id>", () => {
  it("answers deleted and previous without _links, and removes the row and the R2 object", async () => {
    const organizer = await createUser("organizer");
    const { body } = await createTemplate({ auth: organizer.credentials });
    const key = (await fileKeyOf(body.id))!;
    expect(await env.FILES.get(key)).not.toBeNull();

    const res = await expectJson(call("DELETE", path(body.id), { auth: organizer.credentials }), 200);
    const { _links, ...withoutLinks } = body;
    expect(res).toEqual({ deleted: true, previous: withoutLinks });
    expect(res.previous).not.toHaveProperty("_links");

    expect(await fileKeyOf(body.id)).toBeUndefined();
    expect(await env.FILES.get(key)).toBeNull();
    expect(await r2Keys()).not.toContain(key);
    await expectError(call("GET", path(body.id), { auth: organizer.credentials }), 404, "rest_pdf_template_invalid_id");
    await expectError(getUrl(body.url, organizer.credentials), 404, "rest_pdf_template_invalid_id");
    await expectError(call("DELETE", path(body.id), { auth: organizer.credentials }), 404, "rest_pdf_template_invalid_id");
    expect(await expectJson(call("GET", "/admin/pdf-templates", { auth: organizer.credentials }), 200)).toEqual([]);
  });

  it("is 409 while a ticket type uses the template, naming it; succeeds once the reference is gone", async () => {
    const { body, pdf } = await createTemplate();
    const event = await createEvent();
    const typeName = unique("Early bird ");
    const type = await createTicketType(event.id, { name: typeName, attachment_id: body.id });

    const err = await expectError(call("DELETE", path(body.id)), 409, "rest_conflict");
    expect(err.message).toContain(typeName);
    expect(err.message).toContain(String(event.id));
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
    await expectServed(body.url, pdf);

    await expectJson(call("PUT", `/admin/events/${event.id}/ticket-types/${type.id}`, { body: { attachment_id: 0 } }), 200);
    expect((await expectJson(call("DELETE", path(body.id)), 200)).deleted).toBe(true);
  });

  it("is 409 while an event's ticket settings use the template, naming every user; succeeds once they are gone", async () => {
    const { body, pdf } = await createTemplate();
    const key = (await fileKeyOf(body.id))!;
    const event = await createEvent({ tickets_needed: true, pdf_fields: { ticket: { attachment_id: body.id } } });
    expect(event.pdf_fields.ticket.attachment_id).toBe(body.id);

    const err = await expectError(call("DELETE", path(body.id)), 409, "rest_conflict");
    expect(err.message).toContain(`event ${event.id}`);

    // A ticket type of another event joins in: both are named.
    const other = await createEvent();
    const typeName = unique("Balcony ");
    const type = await createTicketType(other.id, { name: typeName, attachment_id: body.id });
    const both = await expectError(call("DELETE", path(body.id)), 409, "rest_conflict");
    expect(both.message).toContain(`event ${event.id}`);
    expect(both.message).toContain(typeName);

    await expectJson(call("DELETE", `/admin/events/${other.id}/ticket-types/${type.id}`), 200);
    await expectJson(call("PUT", `/admin/events/${event.id}`, { body: { pdf_fields: { ticket: { attachment_id: 0 } } } }), 200);
    expect(await env.FILES.get(key)).not.toBeNull();
    await expectServed(body.url, pdf);
    const res = await expectJson(call("DELETE", path(body.id)), 200);
    expect(res.previous.id).toBe(body.id);
    expect(await env.FILES.get(key)).toBeNull();
  });

  it("is not blocked by an event naming the template while tickets_needed is off; that event lets go of it (decisions.md 15)", async () => {
    const owner = await createUser("organizer");
    const { body } = await createTemplate({ auth: owner.credentials });
    const stranger = await createUser("organizer");
    const event = await expectJson(call("POST", "/admin/events", { body: { event_name: unique("Dormant ") }, auth: stranger.credentials }), 201);
    // Written before section 15, when a template named while tickets were off was not checked.
    const ticket = { ...event.pdf_fields.ticket, attachment_id: body.id };
    await db.update(eventsTable).set({ ticketPdf: ticket }).where(eq(eventsTable.id, event.id));

    expect((await expectJson(call("DELETE", path(body.id), { auth: owner.credentials }), 200)).deleted).toBe(true);
    const after = await expectJson(call("GET", `/admin/events/${event.id}`), 200);
    expect(after.pdf_fields.ticket).toEqual({ ...ticket, attachment_id: 0 });
    expect(after.tickets_needed).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Authentication and limits
// ---------------------------------------------------------------------------------------------------------------

describe("authentication", () => {
  it("needs the API key (401 rest_forbidden_api_key) on every route", async () => {
    const { body, pdf } = await createTemplate();
    const before = await storage();
    for (const key of [null, "wrong-key"]) {
      await expectError(call("GET", "/admin/pdf-templates", { key }), 401, "rest_forbidden_api_key");
      await expectError(call("GET", path(body.id), { key }), 401, "rest_forbidden_api_key");
      await expectError(getUrl(body.url, undefined, key), 401, "rest_forbidden_api_key");
      await expectError(upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: "No key" }, key }), 401, "rest_forbidden_api_key");
      await expectError(putForm(body.id, { file: await makePdf(1, { text: "no key" }), key }), 401, "rest_forbidden_api_key");
      await expectError(call("DELETE", path(body.id), { key }), 401, "rest_forbidden_api_key");
    }
    await expectNothingStored(before);
    await expectServed(body.url, pdf);
  });

  it("needs Basic credentials (401 rest_not_logged_in with a challenge) on every route", async () => {
    const { body, pdf } = await createTemplate();
    const before = await storage();
    const responses = [
      await call("GET", "/admin/pdf-templates", { auth: null }),
      await call("GET", path(body.id), { auth: null }),
      await getUrl(body.url, null),
      await upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: "No login" }, auth: null }),
      await putJson(body.id, { title: "No login" }, null),
      await call("DELETE", path(body.id), { auth: null }),
    ];
    for (const res of responses) {
      expect(res.headers.get("WWW-Authenticate")).toBe('Basic realm="ticketing"');
      await expectError(res, 401, "rest_not_logged_in");
    }
    await expectError(getUrl(body.url, { username: ADMIN.username, password: "wrong-password-123" }), 401, "incorrect_password");
    await expectNothingStored(before);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
  });
});

describe("upload size", () => {
  function multipartOfSize(total: number): { body: Uint8Array; contentType: string } {
    const boundary = "----size-test-boundary";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\nBig\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    const body = new Uint8Array(total).fill(0x78); // "x"
    body.set(head, 0);
    body.set(tail, total - tail.length);
    return { body, contentType: `multipart/form-data; boundary=${boundary}` };
  }

  /** A hand-made body, sent as it is (a ReadableStream goes without Content-Length). */
  function sendRaw(body: Uint8Array | ReadableStream<Uint8Array>, contentType: string) {
    const headers = { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN), "Content-Type": contentType };
    return exports.default.fetch(new Request(`${BASE}/admin/pdf-templates`, { method: "POST", headers, body }));
  }

  it("refuses a file of 10 MiB + 1 byte with 413 rest_payload_too_large and stores nothing", async () => {
    const before = await storage();
    const big = new Uint8Array(UPLOAD_LIMIT + 1);
    big.set(await validPdf, 0);
    await expectError(upload("POST", "/admin/pdf-templates", { file: big, fields: { title: "Too big" } }), 413, "rest_payload_too_large");
    await expectNothingStored(before);
  });

  it("counts the whole multipart body: exactly 10 MiB is read, 10 MiB + 1 byte is 413", async () => {
    const before = await storage();
    const atLimit = multipartOfSize(UPLOAD_LIMIT);
    const err = await expectError(sendRaw(atLimit.body, atLimit.contentType), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual(["file"]);
    const over = multipartOfSize(UPLOAD_LIMIT + 1);
    await expectError(sendRaw(over.body, over.contentType), 413, "rest_payload_too_large");
    await expectNothingStored(before);
  });

  it("refuses a streamed upload over 10 MiB without Content-Length", async () => {
    const over = multipartOfSize(UPLOAD_LIMIT + 1);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < over.body.length; i += 256 * 1024) controller.enqueue(over.body.slice(i, i + 256 * 1024));
        controller.close();
      },
    });
    const before = await storage();
    await expectError(sendRaw(stream, over.contentType), 413, "rest_payload_too_large");
    await expectNothingStored(before);
  });
});

describe("unpacked size (decisions.md 14)", () => {
  const TOO_LARGE = "The PDF is too large when unpacked";

  async function expectTooLarge(res: Promise<Response>) {
    const err = await expectError(res, 400, "rest_invalid_param");
    expect(err.message).toBe(TOO_LARGE);
    expect(err.data.params).toEqual({ file: TOO_LARGE });
  }

  /** The upload is refused as a new template and as a replacement; nothing is stored and the old file stays. */
  async function expectRefusedEverywhere(pdf: Uint8Array) {
    expect(pdf.length).toBeLessThan(UPLOAD_LIMIT);
    const before = await storage();
    await expectTooLarge(upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: "Unpacks too far" } }));
    await expectNothingStored(before);

    const { body, pdf: kept } = await createTemplate({ pdf: await makePdf(1, { text: "kept" }) });
    const withKept = await storage();
    await expectTooLarge(putForm(body.id, { file: pdf, fields: { title: "Should not stick" } }));
    await expectNothingStored(withKept);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
    await expectServed(body.url, kept);
  }

  it.each([
    ["a stream", { Filter: "FlateDecode" }],
    ["an object stream (pdf-lib unpacks it while loading)", { Type: "ObjStm", N: 1, First: 4, Filter: "FlateDecode" }],
  ])("refuses %s that unpacks to more than 64 MiB from about 64 KB", async (_name, dict) => {
    const bomb = await deflatedZeros(64 * MiB + 1);
    expect(bomb.length).toBeLessThan(100_000);
    await expectRefusedEverywhere(await pdfWithStreams([{ data: bomb, dict }]));
  });

  it("refuses a PDF of more than 100,000 objects, however small", async () => {
    await expectRefusedEverywhere(await pdfWithObjects(100_001));
  });

  it("accepts several streams that unpack to 60 MiB together", async () => {
    const part = await deflatedZeros(15 * MiB);
    const pdf = await pdfWithStreams([part, part, part, part].map((data) => ({ data, dict: { Filter: "FlateDecode" } })));
    const { body } = await createTemplate({ pdf });
    await expectServed(body.url, pdf);
  });
});

describe("page tree (decisions.md 15)", () => {
  const TOO_LARGE = "The PDF's page tree is too large";

  async function expectTooLarge(res: Promise<Response>) {
    const err = await expectError(res, 400, "rest_invalid_param");
    expect(err.message).toBe(TOO_LARGE);
    expect(err.data.params).toEqual({ file: TOO_LARGE });
  }

  /**
   * Refused as a new template and as a replacement; nothing is stored and the old file stays. The answer coming at
   * all is the check: a walk of every kid of 30 levels does not end within the Worker's limits (how fast it comes is
   * measured by the benches, not here).
   */
  async function expectRefusedEverywhere(pdf: Uint8Array) {
    const before = await storage();
    await expectTooLarge(upload("POST", "/admin/pdf-templates", { file: pdf, fields: { title: "Page tree" } }));
    await expectNothingStored(before);

    const { body, pdf: kept } = await createTemplate({ pdf: await makePdf(1, { text: "kept despite the tree" }) });
    const withKept = await storage();
    await expectTooLarge(putForm(body.id, { file: pdf, fields: { title: "Should not stick" } }));
    await expectNothingStored(withKept);
    expect(await expectJson(call("GET", path(body.id)), 200)).toEqual(body);
    await expectServed(body.url, kept);
  }

  it("refuses a tree where each /Pages node lists the next twice, 23 levels in about 2.5 KB", async () => {
    const pdf = fanOutPageTree(23);
    expect(pdf.length).toBeLessThan(2600);
    await expectRefusedEverywhere(pdf);
  });

  it("answers at all for 30 such levels (2^30 kids if every one were followed)", async () => {
    await expectRefusedEverywhere(fanOutPageTree(30));
  });

  it("refuses a loop: a /Pages node listing the root again", async () => {
    await expectRefusedEverywhere(loopingPageTree());
  });

  it("refuses a page whose /Parent chain loops", async () => {
    await expectRefusedEverywhere(parentLoopPageTree());
  });

  it("refuses a kid listed by two parents", async () => {
    await expectRefusedEverywhere(sharedKidPageTree());
  });

  it("refuses 1,001 nodes, however flat, and accepts 1,000", async () => {
    await expectRefusedEverywhere(flatPageTree(1001));
    const pdf = flatPageTree(1000);
    const { body } = await createTemplate({ pdf });
    await expectServed(body.url, pdf);
  });

  it("refuses a page deeper than 32 levels and accepts one at 32", async () => {
    await expectRefusedEverywhere(deepPageTree(32));
    const pdf = deepPageTree(31);
    const { body } = await createTemplate({ pdf });
    await expectServed(body.url, pdf);
  });

  it("still accepts ordinary one-page templates (object streams or a classic xref table)", async () => {
    for (const pdf of [await makePdf(1, { text: "ordinary" }), await makePdf(1, { text: "classic xref", useObjectStreams: false })]) {
      const { body } = await createTemplate({ pdf });
      await expectServed(body.url, pdf);
    }
  });
});
