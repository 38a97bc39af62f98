import { exports } from "cloudflare:workers";
import qrcode from "qrcode-generator";
import { describe, expect, it } from "vitest";
import { ADMIN, API_KEY, BASE, basic, call, createUser, expectError } from "../../helpers/api";
import { createEvent, createScanKey } from "../../helpers/catalogue";
import { readPng } from "../../helpers/png";

/**
 * `GET /admin/events/<event_id>/scan-keys/<key>/qr?format=png|svg` (docs/scanning.md "A scan key's QR code for the
 * door app"): a QR code of `<origin>/ticketing/v1/door/#key=<key>` that opens the door app with the key set. Each
 * image is read back and its modules compared with qrcode-generator's matrix for the expected address (error
 * correction M, quiet zone 4), so the test proves the image carries exactly that text. Access as `GET
 * .../scan-keys/<key>`. Each test makes its own event.
 */

const QUIET = 4;
const MODULE_PX = 8;

const qrPath = (eventId: number, key: string, query = "") => `/admin/events/${eventId}/scan-keys/${key}/qr${query}`;

/** qrcode-generator's own matrix for `text` (ASCII), padded with the quiet zone: `dark[row][col]`. */
function expectedModules(text: string): boolean[][] {
  const code = qrcode(0, "M");
  code.addData(text, "Byte");
  code.make();
  const size = code.getModuleCount();
  const side = size + 2 * QUIET;
  return Array.from({ length: side }, (_, row) =>
    Array.from({ length: side }, (_, col) => {
      const r = row - QUIET;
      const c = col - QUIET;
      return r >= 0 && c >= 0 && r < size && c < size && code.isDark(r, c);
    }),
  );
}

/** The PNG's pixels as modules: every MODULE_PX square one colour, black (dark) or white. */
async function pngModules(res: Response): Promise<boolean[][]> {
  const { width, height, pixels } = await readPng(new Uint8Array(await res.arrayBuffer()));
  expect(width).toBe(height);
  expect(width % MODULE_PX).toBe(0);
  const side = width / MODULE_PX;
  const modules = Array.from({ length: side }, (_, row) => Array.from({ length: side }, (_, col) => pixels[row * MODULE_PX * width + col * MODULE_PX] === 0));
  const stray: string[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const expected = modules[Math.floor(y / MODULE_PX)]![Math.floor(x / MODULE_PX)] ? 0 : 255;
      if (pixels[y * width + x] !== expected) stray.push(`${x},${y}: ${pixels[y * width + x]}`);
    }
  }
  expect(stray.slice(0, 10), "every pixel black or white, the colour of its module").toEqual([]);
  return modules;
}

/**
 * The SVG's modules: one white square of the viewBox, then one path of `M<col> <row>h<n>v1h-<n>z` rectangles (the
 * whole `d` must be of those), filled into a grid of the viewBox's side.
 */
function svgModules(svg: string): boolean[][] {
  const root = /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1" width="(\d+)" height="\2" shape-rendering="crispEdges">/.exec(svg);
  expect(root, svg.slice(0, 200)).not.toBeNull();
  const side = Number(root![1]);
  expect(Number(root![2])).toBe(side * MODULE_PX);
  expect(svg.match(/<path /g)).toHaveLength(1);
  expect(svg.match(/<[a-z]+ /g)).toEqual(["<svg ", "<rect ", "<path "]);
  expect(svg).toContain(`<rect width="${side}" height="${side}" fill="#fff"/>`);
  expect(svg.endsWith("</svg>")).toBe(true);
  const d = /<path fill="#000" d="([^"]*)"\/>/.exec(svg)![1]!;
  const modules = Array.from({ length: side }, () => new Array<boolean>(side).fill(false));
  let parsed = "";
  for (const [whole, x, y, w, back] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)) {
    parsed += whole;
    expect(back).toBe(w);
    for (let i = 0; i < Number(w); i++) {
      expect(modules[Number(y)]![Number(x) + i], "no module drawn twice").toBe(false);
      modules[Number(y)]![Number(x) + i] = true;
    }
  }
  expect(parsed, "the path holds nothing else").toBe(d);
  return modules;
}

async function eventWithKey(location = "Main entrance") {
  const event = await createEvent();
  const key = await createScanKey(event.id, { level: 0, location });
  return { eventId: event.id as number, key: key.key as string };
}

describe("GET /admin/events/<event_id>/scan-keys/<key>/qr", () => {
  it("PNG by default: the door app's address with the key in the fragment, module for module; not cached", async () => {
    const { eventId, key } = await eventWithKey();
    const res = await call("GET", qrPath(eventId, key));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/png");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("ETag")).toBeNull();
    expect(res.headers.get("Content-Disposition")).toBe('inline; filename="scan-key-Main-entrance.png"');
    const modules = await pngModules(res);
    expect(modules).toEqual(expectedModules(`${BASE}/door/#key=${key}`));
    // The address is what the code says, not something close to it (the key's last character changed).
    const other = `${key.slice(0, -1)}${key.endsWith("X") ? "Y" : "X"}`;
    expect(modules).not.toEqual(expectedModules(`${BASE}/door/#key=${other}`));

    const explicit = await call("GET", qrPath(eventId, key, "?format=png"));
    expect(explicit.headers.get("Content-Type")).toBe("image/png");
    expect(await pngModules(explicit)).toEqual(modules);
  });

  it("SVG: one path of the dark modules, viewBox in modules, crisp edges, width and height; the same modules", async () => {
    const { eventId, key } = await eventWithKey("Side door");
    const res = await call("GET", qrPath(eventId, key, "?format=svg"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/svg+xml; charset=utf-8");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.headers.get("Content-Disposition")).toBe('inline; filename="scan-key-Side-door.svg"');
    const modules = svgModules(await res.text());
    expect(modules).toEqual(expectedModules(`${BASE}/door/#key=${key}`));
    expect(await pngModules(await call("GET", qrPath(eventId, key)))).toEqual(modules);
  });

  it("the address's origin is the request's", async () => {
    const { eventId, key } = await eventWithKey();
    const origin = "https://door.example.org";
    const res = await exports.default.fetch(
      new Request(`${origin}/ticketing/v1${qrPath(eventId, key, "?format=svg")}`, { headers: { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN) } }),
    );
    expect(res.status).toBe(200);
    expect(svgModules(await res.text())).toEqual(expectedModules(`${origin}/ticketing/v1/door/#key=${key}`));
  });

  it("names the file after the location, made safe (letters, digits, . _ -), or after the key when nothing is left", async () => {
    const event = await createEvent();
    for (const [location, name] of [
      ['Entrée Nord / "VIP" \\ A', "scan-key-Entree-Nord-VIP-A"],
      ["..hidden..", "scan-key-hidden"],
      ["Gate_2.b", "scan-key-Gate_2.b"],
      ["a\u0007b;c=d", "scan-key-a-b-c-d"],
    ]) {
      const key = (await createScanKey(event.id, { location })).key as string;
      for (const format of ["png", "svg"]) {
        const res = await call("GET", qrPath(event.id, key, `?format=${format}`));
        expect(res.headers.get("Content-Disposition"), location).toBe(`inline; filename="${name}.${format}"`);
        await res.arrayBuffer();
      }
    }
    const key = (await createScanKey(event.id, { location: "入口 🚪" })).key as string;
    const res = await call("GET", qrPath(event.id, key));
    expect(res.headers.get("Content-Disposition")).toBe(`inline; filename="scan-key-${key}.png"`);
    await res.arrayBuffer();
  });

  it("a format other than png or svg is 400 rest_invalid_param naming format", async () => {
    const { eventId, key } = await eventWithKey();
    for (const query of ["?format=gif", "?format=PNG", "?format=", "?format=png&format=svg", "?format=svg%00"]) {
      const err = await expectError(call("GET", qrPath(eventId, key, query)), 400, "rest_invalid_param");
      expect(Object.keys(err.data.params ?? {}), query).toEqual(["format"]);
    }
  });
});

describe("who can reach it", () => {
  it("needs the API key and an administrator's or organiser's login: without either 401, and no image", async () => {
    const { eventId, key } = await eventWithKey();
    const refused = [
      [await call("GET", qrPath(eventId, key), { auth: null }), "rest_not_logged_in"],
      [await call("GET", qrPath(eventId, key), { key: null }), "rest_forbidden_api_key"],
      [await call("GET", qrPath(eventId, key), { key: "wrong-key" }), "rest_forbidden_api_key"],
      // The scan key itself opens nothing here.
      [await call("GET", qrPath(eventId, key), { key, auth: null }), "rest_forbidden_api_key"],
      [await call("GET", qrPath(eventId, key), { auth: { username: "admin", password: "wrong" } }), "incorrect_password"],
    ] as const;
    for (const [res, code] of refused) {
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      await expectError(res, 401, code);
    }
  });

  it("an organiser of the event gets it; another organiser's user is 403 and learns nothing of the key", async () => {
    const { eventId, key } = await eventWithKey();
    const own = await createUser("organizer", { authorised_events: [eventId] });
    const res = await call("GET", qrPath(eventId, key, "?format=svg"), { auth: own.credentials });
    expect(res.status).toBe(200);
    expect(svgModules(await res.text())).toEqual(expectedModules(`${BASE}/door/#key=${key}`));

    const elsewhere = await createEvent();
    const stranger = await createUser("organizer", { authorised_events: [elsewhere.id] });
    for (const format of ["png", "svg"]) {
      const denied = await call("GET", qrPath(eventId, key, `?format=${format}`), { auth: stranger.credentials });
      const text = await denied.clone().text();
      expect(text).not.toContain(key);
      expect(denied.headers.get("Content-Disposition")).toBeNull();
      await expectError(denied, 403, "rest_forbidden");
    }
    // Another organiser's user asking for an unknown key of that event is refused the same way, so it cannot
    // tell which keys exist there.
    await expectError(call("GET", qrPath(eventId, "NoSuchScanKey000"), { auth: stranger.credentials }), 403, "rest_forbidden");
  });

  it("an unknown key, a key of another event and a deleted key are 404 rest_scan_key_invalid_id; an unknown event 404 rest_event_invalid_id", async () => {
    const a = await eventWithKey();
    const b = await eventWithKey();
    await expectError(call("GET", qrPath(a.eventId, "NoSuchScanKey000")), 404, "rest_scan_key_invalid_id");
    await expectError(call("GET", qrPath(a.eventId, "short")), 404, "rest_scan_key_invalid_id");
    const foreign = await call("GET", qrPath(a.eventId, b.key, "?format=svg"));
    expect(await foreign.clone().text()).not.toContain(b.key);
    await expectError(foreign, 404, "rest_scan_key_invalid_id");

    await call("DELETE", `/admin/events/${a.eventId}/scan-keys/${a.key}`);
    await expectError(call("GET", qrPath(a.eventId, a.key)), 404, "rest_scan_key_invalid_id");
    await expectError(call("GET", qrPath(987_654_321, b.key)), 404, "rest_event_invalid_id");
  });
});
