import { exports } from "cloudflare:workers";
import createClient from "openapi-fetch";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ADMIN, API_KEY, basic, ORIGIN, unique } from "../helpers/api";
import type { components, paths } from "../../src/console-app/openapi";

/**
 * A client generated from the committed interface (docs/openapi.json): `npm run typecheck` writes its types with
 * openapi-typescript into src/console-app/openapi.d.ts (git-ignored; the console is built on the same types) before tsc reads this file, and openapi-fetch calls
 * the service with them. The `expectTypeOf` lines are the point: they fail to compile when an answer is typed
 * `undefined`, `unknown` or `any`, or loses a field; the calls show the same paths and bodies work for real.
 */

const client = createClient<paths>({
  baseUrl: ORIGIN,
  headers: { "X-EVT-API-KEY": API_KEY, Authorization: basic(ADMIN) },
  fetch: (request: Request) => exports.default.fetch(request),
});

type Event = components["schemas"]["Event"];

describe("a client generated from docs/openapi.json", () => {
  it("types an event's answers: POST /admin/events, GET /admin/events/{id}, GET /admin/events", async () => {
    const created = await client.POST("/ticketing/v1/admin/events", { body: { event_name: unique("Typed ") } });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expectTypeOf(id).toEqualTypeOf<number>();

    const { data, error } = await client.GET("/ticketing/v1/admin/events/{id}", { params: { path: { id: String(id) } } });
    expectTypeOf(data).not.toBeAny();
    expectTypeOf(data).not.toBeUnknown();
    expectTypeOf<NonNullable<typeof data>>().toMatchTypeOf<Event>();
    expectTypeOf<NonNullable<typeof data>["id"]>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<typeof data>["event_name"]>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<typeof data>["sold"]>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<typeof data>["emails_needed"]>().toEqualTypeOf<boolean>();
    expectTypeOf<NonNullable<typeof data>["_links"]>().not.toBeAny();
    expectTypeOf<NonNullable<typeof error>>().toEqualTypeOf<components["schemas"]["Error"]>();
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ id, event_name: created.data!.event_name });

    const list = await client.GET("/ticketing/v1/admin/events", { params: { query: { include: String(id) } } });
    expectTypeOf<NonNullable<typeof list.data>[number]["event_name"]>().toEqualTypeOf<string>();
    expect(list.data?.map((e) => e.id)).toEqual([id]);
    expect(list.response.headers.get("X-WP-Total")).toBe("1");
  });

  it("types a dashboard order with its Idempotency-Key header, and the error envelope", async () => {
    const event = (await client.POST("/ticketing/v1/admin/events", { body: { event_name: unique("Typed "), add_dashboard_orders_needed: true } })).data!;
    const type = (await client.POST("/ticketing/v1/admin/events/{id}/ticket-types", { params: { path: { id: String(event.id) } }, body: { name: "Regular", price: 10 } }))
      .data!;
    expectTypeOf(type.id).toEqualTypeOf<string>();
    expectTypeOf(type).not.toHaveProperty("sold");

    const { data, response } = await client.POST("/ticketing/v1/admin/orders", {
      params: { header: { "Idempotency-Key": unique("typed-") } },
      body: { event_id: event.id, name: "Ada Lovelace", email: "ada@example.com", tickets: [{ [type.id]: 2 }] },
    });
    expectTypeOf<NonNullable<typeof data>>().toEqualTypeOf<components["schemas"]["Order"]>();
    expectTypeOf<NonNullable<typeof data>["uid"]>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<typeof data>["input_fields"]["tickets"][number]["number"]>().toEqualTypeOf<number>();
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ event_id: event.id, num_tickets: 2 });

    const missing = await client.GET("/ticketing/v1/admin/orders/{id}", { params: { path: { id: "999999999" } } });
    expectTypeOf<NonNullable<typeof missing.error>["data"]["status"]>().toEqualTypeOf<number>();
    expect(missing.error).toMatchObject({ code: "rest_order_invalid_id", data: { status: 404 } });
  });
});
