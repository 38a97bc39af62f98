import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { applicationPasswords } from "../../../src/db/schema";
import { touchApplicationPassword } from "../../../src/features/users/auth.service";
import { depsFromEnv } from "../../../src/platform/deps";
import { ADMIN, BASE, call, createUser, expectError, expectJson, unique, type CreatedUser } from "../../helpers/api";
import { createEvent, db } from "../../helpers/catalogue";

const USER_FIELDS = ["_links", "authorised_events", "created", "email", "id", "name", "role", "username"];

describe("GET /admin/users", () => {
  it("lists the bootstrap administrator with the user shape and unpaged headers", async () => {
    const res = await call("GET", "/admin/users");
    const users = await expectJson<any[]>(res, 200);
    const admin = users.find((u) => u.username === ADMIN.username);
    expect(admin).toMatchObject({ role: "administrator", authorised_events: [], name: "" });
    expect(Object.keys(admin).sort()).toEqual(USER_FIELDS);
    expect(admin.created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(admin._links).toEqual({
      self: [{ href: `${BASE}/admin/users/${admin.id}` }],
      collection: [{ href: `${BASE}/admin/users` }],
    });
    expect(res.headers.get("X-WP-Total")).toBe(String(users.length));
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("keeps only the fields named in _fields", async () => {
    const users = await expectJson<any[]>(call("GET", "/admin/users?_fields=id,username"), 200);
    for (const u of users) expect(Object.keys(u).sort()).toEqual(["id", "username"]);
  });

  it("is for administrators only", async () => {
    const organizer = await createUser("organizer");
    await expectError(call("GET", "/admin/users", { auth: organizer.credentials }), 403, "rest_forbidden");
    const admin = await createUser("administrator");
    await expectJson(call("GET", "/admin/users", { auth: admin.credentials }), 200);
  });
});

describe("POST /admin/users", () => {
  it("creates a user, answers 201 with Location and shows the application password once", async () => {
    const [e1, e3] = [await createEvent(), await createEvent()];
    const username = unique("maria");
    const res = await call("POST", "/admin/users", {
      body: { username, email: `${username}@Example.com`, role: "organizer", name: " Maria ", authorised_events: [e3.id, e1.id, e3.id] },
    });
    const body = await expectJson(res, 201);
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/users/${body.id}`);
    expect(body).toMatchObject({ username, email: `${username}@Example.com`, role: "organizer", name: "Maria", authorised_events: [e1.id, e3.id] });
    expect(body.application_password).toMatch(/^[A-Za-z0-9]{24}$/);

    const read = await expectJson(call("GET", `/admin/users/${body.id}`), 200);
    expect(read).not.toHaveProperty("application_password");
    expect(read).toEqual({ ...body, application_password: undefined, _links: read._links });
  });

  it("lets the new user sign in with the password it was given", async () => {
    const user = await createUser("organizer");
    await expectJson(call("GET", "/admin/users", { auth: user.credentials }), 403);
    const admin = await createUser("administrator");
    await expectJson(call("GET", `/admin/users/${admin.id}`, { auth: admin.credentials }), 200);
  });

  it.each([
    [{ email: "a@example.com", role: "organizer" }, "username"],
    [{ username: "someone", role: "organizer" }, "email"],
    [{ username: "someone", email: "someone@example.com" }, "role"],
  ])("refuses a body without a required field (%j)", async (body, missing) => {
    const err = await expectError(call("POST", "/admin/users", { body }), 400, "rest_missing_callback_param");
    expect(Object.keys(err.data.params!)).toEqual([missing]);
  });

  it.each([
    ["username", { username: "has space" }],
    ["username", { username: "has:colon" }],
    ["username", { username: "x".repeat(61) }],
    ["username", { username: 42 }],
    ["email", { email: "not-an-email" }],
    ["email", { email: `${"x".repeat(95)}@example.com` }],
    ["role", { role: "superuser" }],
    ["name", { name: "n".repeat(101) }],
    ["authorised_events", { authorised_events: [0] }],
    ["authorised_events", { authorised_events: "1,2" }],
    ["authorised_events", { authorised_events: [987654321] }],
    ["nickname", { nickname: "unknown field" }],
  ])("refuses an invalid %s", async (field, override) => {
    const username = unique("v");
    const body = { username, email: `${username}@example.com`, role: "organizer", ...override };
    const err = await expectError(call("POST", "/admin/users", { body }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toContain(field);
    const list = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    expect(list.some((u) => u.username === username)).toBe(false);
  });

  it.each(["\r\n", "\u0000", "\u007f"])("refuses a name or email holding the control character %j, creating nothing (decisions.md 14)", async (bad) => {
    const cases: [string, Record<string, string>, string][] = [
      ["name", { name: `Maria${bad}Bcc: evil@x.com` }, "Name contains invalid characters"],
      ["email", { email: `maria${bad}@example.com` }, "must be a valid email address"],
    ];
    for (const [field, override, message] of cases) {
      const username = unique("cc");
      const body = { username, email: `${username}@example.com`, role: "organizer", ...override };
      const err = await expectError(call("POST", "/admin/users", { body }), 400, "rest_invalid_param");
      expect(err.data.params, field).toEqual({ [field]: message });
      const list = await expectJson<any[]>(call("GET", "/admin/users"), 200);
      expect(
        list.some((u) => u.username === username),
        field,
      ).toBe(false);
    }
  });

  it.each(["id", "created", "application_password"])("refuses the read-only field %s on create", async (field) => {
    const username = unique("ro");
    const body = { username, email: `${username}@example.com`, role: "organizer", [field]: field === "id" ? 1 : "x" };
    const err = await expectError(call("POST", "/admin/users", { body }), 400, "rest_invalid_param");
    expect(Object.keys(err.data.params!)).toEqual([field]);
  });

  it("ignores _links sent back by a client", async () => {
    const username = unique("links");
    const body = { username, email: `${username}@example.com`, role: "organizer", _links: { self: [{ href: "x" }] } };
    await expectJson(call("POST", "/admin/users", { body }), 201);
  });

  it("refuses usernames and emails already taken, in any letter case and across the two", async () => {
    const existing = await createUser("organizer");
    const cases = [
      { username: existing.username.toUpperCase(), email: `${unique("e")}@example.com` },
      { username: unique("u"), email: existing.email.toUpperCase() },
      { username: existing.email, email: `${unique("e")}@example.com` },
    ];
    for (const body of cases) {
      await expectError(call("POST", "/admin/users", { body: { ...body, role: "organizer" } }), 409, "rest_conflict");
    }
    const other = unique("o");
    await expectJson(call("POST", "/admin/users", { body: { username: other, email: `${other}@example.com`, role: "organizer" } }), 201);
    await expectError(call("POST", "/admin/users", { body: { username: unique("u"), email: other, role: "organizer" } }), 400, "rest_invalid_param");
  });

  it("creates exactly one user when the same username is sent many times at once", async () => {
    const username = unique("race");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call("POST", "/admin/users", { body: { username, email: `${username}${i}@example.com`, role: "organizer" } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
    const list = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    expect(list.filter((u) => u.username === username)).toHaveLength(1);
  });

  it("refuses a body that is not JSON", async () => {
    await expectError(call("POST", "/admin/users", { body: "{not json" }), 400, "rest_invalid_json");
    await expectError(
      call("POST", "/admin/users", { body: "username=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "rest_unsupported_media_type",
    );
  });
});

describe("GET /admin/users/<id>", () => {
  it("answers 404 rest_user_invalid_id for an unknown or malformed id", async () => {
    await expectError(call("GET", "/admin/users/999999"), 404, "rest_user_invalid_id");
    await expectError(call("GET", "/admin/users/abc"), 404, "rest_user_invalid_id");
    await expectError(call("GET", "/admin/users/0"), 404, "rest_user_invalid_id");
  });

  it("is for administrators only", async () => {
    const organizer = await createUser("organizer");
    await expectError(call("GET", `/admin/users/${organizer.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
  });
});

describe("PUT /admin/users/<id>", () => {
  it("changes email, name, role and authorised events", async () => {
    const user = await createUser("organizer");
    const email = `${unique("new")}@example.com`;
    const event = await createEvent();
    const body = await expectJson(
      call("PUT", `/admin/users/${user.id}`, { body: { email, name: "New Name", role: "administrator", authorised_events: [event.id] } }),
      200,
    );
    expect(body).toMatchObject({ id: user.id, username: user.username, email, name: "New Name", role: "administrator", authorised_events: [event.id] });
    expect(await expectJson(call("GET", `/admin/users/${user.id}`), 200)).toEqual(body);
    // The user may now sign in with the new email as its username.
    await expectJson(call("GET", "/admin/users", { auth: { username: email, password: user.credentials.password } }), 200);
  });

  it("accepts back what it read, and refuses a changed read-only field", async () => {
    const user = await createUser("organizer");
    const read = await expectJson(call("GET", `/admin/users/${user.id}`), 200);
    const back = await expectJson(call("PUT", `/admin/users/${user.id}`, { body: { ...read, name: "Changed" } }), 200);
    expect(back.name).toBe("Changed");
    for (const [field, value] of [
      ["username", "someone-else"],
      ["id", user.id + 1],
      ["created", "2001-01-01 00:00:00"],
    ] as const) {
      const err = await expectError(call("PUT", `/admin/users/${user.id}`, { body: { [field]: value } }), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params!)).toEqual([field]);
    }
  });

  it("refuses invalid values and unknown fields, changing nothing", async () => {
    const user = await createUser("organizer");
    const before = await expectJson(call("GET", `/admin/users/${user.id}`), 200);
    for (const body of [{ email: "nope" }, { role: "root" }, { authorised_events: [-1] }, { password: "x" }, { name: "ok", bogus: 1 }]) {
      await expectError(call("PUT", `/admin/users/${user.id}`, { body }), 400, "rest_invalid_param");
    }
    expect(await expectJson(call("GET", `/admin/users/${user.id}`), 200)).toEqual(before);
  });

  it("refuses a name or email holding control characters, changing nothing (decisions.md 14)", async () => {
    const user = await createUser("organizer");
    const before = await expectJson(call("GET", `/admin/users/${user.id}`), 200);
    for (const bad of ["\r\n", "\u0000", "\u007f"]) {
      const name = await expectError(call("PUT", `/admin/users/${user.id}`, { body: { name: `A${bad}B` } }), 400, "rest_invalid_param");
      expect(name.data.params).toEqual({ name: "Name contains invalid characters" });
      const email = await expectError(call("PUT", `/admin/users/${user.id}`, { body: { email: `a${bad}b@example.com` } }), 400, "rest_invalid_param");
      expect(email.data.params).toEqual({ email: "must be a valid email address" });
    }
    expect(await expectJson(call("GET", `/admin/users/${user.id}`), 200)).toEqual(before);
    // Trimmed first: line breaks around a name are not part of it.
    expect((await expectJson(call("PUT", `/admin/users/${user.id}`, { body: { name: "\r\n Maria \n" } }), 200)).name).toBe("Maria");
  });

  it("refuses an email another user has as username or email", async () => {
    const a = await createUser("organizer");
    const b = await createUser("organizer");
    await expectError(call("PUT", `/admin/users/${b.id}`, { body: { email: a.email.toUpperCase() } }), 409, "rest_conflict");
    const withUsernameEmail = await createUser("organizer", {});
    await expectJson(call("PUT", `/admin/users/${withUsernameEmail.id}`, { body: { email: `${withUsernameEmail.username}@example.org` } }), 200);
  });

  it("never demotes the last administrator", async () => {
    const users = await expectJson<any[]>(call("GET", "/admin/users"), 200);
    const admins = users.filter((u) => u.role === "administrator");
    // Demote every administrator but the bootstrap one, then try the bootstrap one.
    for (const a of admins.filter((u) => u.username !== ADMIN.username)) {
      await expectJson(call("PUT", `/admin/users/${a.id}`, { body: { role: "organizer" } }), 200);
    }
    const me = admins.find((u) => u.username === ADMIN.username)!;
    await expectError(call("PUT", `/admin/users/${me.id}`, { body: { role: "organizer" } }), 409, "rest_conflict");
    await expectError(call("DELETE", `/admin/users/${me.id}`), 409, "rest_conflict");
    expect((await expectJson(call("GET", `/admin/users/${me.id}`), 200)).role).toBe("administrator");
  });

  it("is for administrators only and 404s unknown ids", async () => {
    const organizer = await createUser("organizer");
    await expectError(call("PUT", `/admin/users/${organizer.id}`, { auth: organizer.credentials, body: { name: "x" } }), 403, "rest_forbidden");
    await expectError(call("PUT", "/admin/users/987654", { body: { name: "x" } }), 404, "rest_user_invalid_id");
  });
});

describe("DELETE /admin/users/<id>", () => {
  it("deletes the user, answers previous without links, and revokes every application password", async () => {
    const user = await createUser("administrator");
    const second = await expectJson(call("POST", `/admin/users/${user.id}/application-passwords`, { body: {} }), 201);
    const res = await expectJson(call("DELETE", `/admin/users/${user.id}`), 200);
    expect(res.deleted).toBe(true);
    expect(res.previous).toMatchObject({ id: user.id, username: user.username, role: "administrator" });
    expect(res.previous).not.toHaveProperty("_links");
    expect(res.previous).not.toHaveProperty("application_password");
    await expectError(call("GET", `/admin/users/${user.id}`), 404, "rest_user_invalid_id");
    for (const password of [user.credentials.password, second.application_password]) {
      await expectError(call("GET", "/admin/users", { auth: { username: user.username, password } }), 401, "incorrect_password");
    }
  });

  it("is for administrators only and 404s unknown ids", async () => {
    const organizer = await createUser("organizer");
    await expectError(call("DELETE", `/admin/users/${organizer.id}`, { auth: organizer.credentials }), 403, "rest_forbidden");
    await expectError(call("DELETE", "/admin/users/987654"), 404, "rest_user_invalid_id");
  });
});

describe("POST /admin/users/<id>/application-passwords", () => {
  it("issues another password, shown once, and keeps the earlier ones", async () => {
    const user = await createUser("administrator");
    const res = await call("POST", `/admin/users/${user.id}/application-passwords`, { body: { name: "scanner phone" } });
    const body = await expectJson(res, 201);
    // The documented answer, plus the uuid that names the password in the list and in its DELETE.
    expect(Object.keys(body)).toEqual(["application_password", "uuid"]);
    expect(body.application_password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(body.uuid).toMatch(UUID);
    expect(res.headers.get("Location")).toBe(`${BASE}/admin/users/${user.id}`);
    for (const password of [user.credentials.password, body.application_password]) {
      await expectJson(call("GET", "/admin/users", { auth: { username: user.username, password } }), 200);
    }
  });

  it("takes no body at all", async () => {
    const user = await createUser("organizer");
    await expectJson(call("POST", `/admin/users/${user.id}/application-passwords`), 201);
  });

  it("validates the name, the id and the role", async () => {
    const user = await createUser("organizer");
    await expectError(call("POST", `/admin/users/${user.id}/application-passwords`, { body: { name: 5 } }), 400, "rest_invalid_param");
    await expectError(call("POST", `/admin/users/${user.id}/application-passwords`, { body: { label: "x" } }), 400, "rest_invalid_param");
    await expectError(call("POST", "/admin/users/987654/application-passwords", { body: {} }), 404, "rest_user_invalid_id");
    await expectError(call("POST", `/admin/users/${user.id}/application-passwords`, { auth: user.credentials, body: {} }), 403, "rest_forbidden");
  });
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const NOT_FOUND = "rest_application_password_not_found";

const passwordsPath = (userId: number) => `/admin/users/${userId}/application-passwords`;
const listPasswords = (userId: number, auth?: CreatedUser["credentials"]) => expectJson<any[]>(call("GET", passwordsPath(userId), { auth }), 200);

/** Another application password for the user, issued by the bootstrap administrator. */
async function issuePassword(user: CreatedUser, name: string): Promise<{ uuid: string; credentials: CreatedUser["credentials"] }> {
  const body = await expectJson(call("POST", passwordsPath(user.id), { body: { name } }), 201);
  return { uuid: body.uuid, credentials: { username: user.username, password: body.application_password } };
}

/** Whether the credentials still sign in (any admin route the role may read will do; 401 means refused). */
async function signsIn(user: CreatedUser, credentials: CreatedUser["credentials"]): Promise<boolean> {
  const res = await call("GET", passwordsPath(user.id), { auth: credentials });
  if (res.status === 401) return false;
  expect(res.status, await res.text()).toBe(200);
  return true;
}

/** last_used_at is written off the response path: poll until it is set. */
async function lastUsedOf(userId: number, uuid: string): Promise<string | null> {
  for (let i = 0; i < 50; i++) {
    const found = (await listPasswords(userId)).find((p) => p.uuid === uuid);
    if (found?.last_used_at) return found.last_used_at;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

describe("GET /admin/users/<id>/application-passwords", () => {
  it("lists uuid, name, created_at and last_used_at of each password, the first one included, and never a secret", async () => {
    const user = await createUser("organizer");
    const second = await issuePassword(user, "scanner phone");
    const res = await call("GET", passwordsPath(user.id));
    const list = await expectJson<any[]>(res, 200);
    expect(res.headers.get("X-WP-Total")).toBe("2");
    expect(list.map((p) => p.name)).toEqual(["initial", "scanner phone"]);
    for (const p of list) {
      expect(Object.keys(p).sort()).toEqual(["created_at", "last_used_at", "name", "uuid"]);
      expect(p.uuid).toMatch(UUID);
      expect(p.created_at).toMatch(DATE_TIME);
      expect(p.last_used_at).toBeNull();
    }
    expect(list[1].uuid).toBe(second.uuid);
    expect(list[0].uuid).not.toBe(second.uuid);
    const text = JSON.stringify(list);
    for (const secret of [user.credentials.password, second.credentials.password]) expect(text).not.toContain(secret);
    const hashes = await db.select({ h: applicationPasswords.passwordHash }).from(applicationPasswords).where(eq(applicationPasswords.userId, user.id));
    for (const { h } of hashes) expect(text).not.toContain(h);
  });

  it("shows last_used_at null until the password is used, then the time of use; the unused one stays null", async () => {
    const user = await createUser("organizer");
    const spare = await issuePassword(user, "spare");
    const [first] = await listPasswords(user.id);
    expect(first.last_used_at).toBeNull();
    await expectJson(call("GET", passwordsPath(user.id), { auth: user.credentials }), 200);
    expect(await lastUsedOf(user.id, first.uuid)).toMatch(DATE_TIME);
    expect((await listPasswords(user.id)).find((p) => p.uuid === spare.uuid).last_used_at).toBeNull();
  });

  it("404s an unknown or malformed user id for an administrator", async () => {
    await expectError(call("GET", passwordsPath(987654)), 404, "rest_user_invalid_id");
    await expectError(call("GET", "/admin/users/abc/application-passwords"), 404, "rest_user_invalid_id");
  });
});

describe("last_used_at", () => {
  it("is written at most once a minute per password", async () => {
    const user = await createUser("organizer");
    const [{ uuid }] = await listPasswords(user.id);
    const row = (await db.select().from(applicationPasswords).where(eq(applicationPasswords.uuid, uuid)).get())!;
    const at = (now: number) => touchApplicationPassword({ ...depsFromEnv(env), now: () => now }, row.id);
    const lastUsed = async () => (await db.select().from(applicationPasswords).where(eq(applicationPasswords.id, row.id)).get())!.lastUsedAt;
    const t = 2_000_000_000;
    await at(t);
    expect(await lastUsed()).toBe(t);
    await at(t + 59);
    expect(await lastUsed()).toBe(t);
    await at(t + 61);
    expect(await lastUsed()).toBe(t + 61);
  });
});

describe("DELETE /admin/users/<id>/application-passwords/<uuid>", () => {
  it("revokes that password alone: 200 with the listed item as previous; the next call with it is 401", async () => {
    const user = await createUser("administrator");
    const revoked = await issuePassword(user, "laptop");
    const kept = await issuePassword(user, "phone");
    expect(await signsIn(user, revoked.credentials)).toBe(true);
    await lastUsedOf(user.id, revoked.uuid);
    const listed = (await listPasswords(user.id)).find((p) => p.uuid === revoked.uuid);
    expect(listed.last_used_at).toMatch(DATE_TIME);

    const res = await expectJson(call("DELETE", `${passwordsPath(user.id)}/${revoked.uuid}`), 200);
    expect(res).toEqual({ deleted: true, previous: listed });

    const refused = await call("GET", passwordsPath(user.id), { auth: revoked.credentials });
    await expectError(refused, 401, "incorrect_password");
    expect(await signsIn(user, user.credentials)).toBe(true);
    expect(await signsIn(user, kept.credentials)).toBe(true);
    expect((await listPasswords(user.id)).map((p) => p.uuid)).not.toContain(revoked.uuid);
    const again = await expectError(call("DELETE", `${passwordsPath(user.id)}/${revoked.uuid}`), 404, NOT_FOUND);
    expect(again.message).toBe("Application password does not exist");
  });

  it("404s an unknown uuid, another user's uuid and a malformed one, revoking nothing", async () => {
    const user = await createUser("organizer");
    const other = await createUser("organizer");
    const [theirs] = await listPasswords(other.id);
    for (const uuid of [crypto.randomUUID(), theirs.uuid, "not-a-uuid", "x".repeat(200)]) {
      await expectError(call("DELETE", `${passwordsPath(user.id)}/${uuid}`), 404, NOT_FOUND);
    }
    expect(await signsIn(other, other.credentials)).toBe(true);
    expect(await listPasswords(user.id)).toHaveLength(1);
    await expectError(call("DELETE", `${passwordsPath(987654)}/${theirs.uuid}`), 404, "rest_user_invalid_id");
  });
});

describe("application passwords of an organiser", () => {
  it("lists and revokes its own, even the one it signs in with", async () => {
    const me = await createUser("organizer");
    const spare = await issuePassword(me, "spare");
    const list = await listPasswords(me.id, me.credentials);
    expect(list.map((p) => p.name)).toEqual(["initial", "spare"]);
    await expectJson(call("DELETE", `${passwordsPath(me.id)}/${spare.uuid}`, { auth: me.credentials }), 200);
    expect(await signsIn(me, spare.credentials)).toBe(false);
    await expectJson(call("DELETE", `${passwordsPath(me.id)}/${list[0].uuid}`, { auth: me.credentials }), 200);
    expect(await signsIn(me, me.credentials)).toBe(false);
  });

  it("gets 403 for anyone else's, whether the user exists or not, and no other users route opens", async () => {
    const me = await createUser("organizer");
    const other = await createUser("organizer");
    const [theirs] = await listPasswords(other.id);
    const auth = me.credentials;
    await expectError(call("GET", passwordsPath(other.id), { auth }), 403, "rest_forbidden");
    await expectError(call("DELETE", `${passwordsPath(other.id)}/${theirs.uuid}`, { auth }), 403, "rest_forbidden");
    await expectError(call("GET", passwordsPath(987654), { auth }), 403, "rest_forbidden");
    expect(await signsIn(other, other.credentials)).toBe(true);
    // Its own user, and issuing passwords, stay administrator-only.
    await expectError(call("GET", `/admin/users/${me.id}`, { auth }), 403, "rest_forbidden");
    await expectError(call("POST", passwordsPath(me.id), { auth, body: {} }), 403, "rest_forbidden");
  });
});
