import { describe, expect, it } from "vitest";
import { ADMIN, BASE, call, createUser, expectError, expectJson, unique } from "../helpers/api";
import { createEvent } from "../helpers/catalogue";

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
    await expectError(
      call("POST", "/admin/users", { body: { username: unique("u"), email: other, role: "organizer" } }),
      400,
      "rest_invalid_param",
    );
  });

  it("creates exactly one user when the same username is sent many times at once", async () => {
    const username = unique("race");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call("POST", "/admin/users", { body: { username, email: `${username}${i}@example.com`, role: "organizer" } }),
      ),
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
    for (const [field, value] of [["username", "someone-else"], ["id", user.id + 1], ["created", "2001-01-01 00:00:00"]] as const) {
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

  it("refuses an email another user has as username or email", async () => {
    const a = await createUser("organizer");
    const b = await createUser("organizer");
    await expectError(call("PUT", `/admin/users/${b.id}`, { body: { email: a.email.toUpperCase() } }), 409, "rest_conflict");
    const withUsernameEmail = await createUser("organizer", {});
    await expectJson(
      call("PUT", `/admin/users/${withUsernameEmail.id}`, { body: { email: `${withUsernameEmail.username}@example.org` } }),
      200,
    );
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
    expect(Object.keys(body)).toEqual(["application_password"]);
    expect(body.application_password).toMatch(/^[A-Za-z0-9]{24}$/);
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
    await expectError(
      call("POST", `/admin/users/${user.id}/application-passwords`, { auth: user.credentials, body: {} }),
      403,
      "rest_forbidden",
    );
  });
});
