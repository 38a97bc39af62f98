import type { Catalogue } from "./shape";

/** Nederlands (nl): the keys of en.ts. */
export const nl: Catalogue = {
  common: {
    languageName: "Nederlands",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Je bestelling",
  },
  // The door app.
  door: {
    ready: "Klaar",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
