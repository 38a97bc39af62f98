import type { Catalogue } from "./shape";

/** Español (es): the keys of en.ts. */
export const es: Catalogue = {
  common: {
    languageName: "Español",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Pedir",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Tu pedido",
  },
  // The door app.
  door: {
    ready: "Listo",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
