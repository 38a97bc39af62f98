import type { Catalogue } from "./shape";

/** Deutsch (de): the keys of en.ts. */
export const de: Catalogue = {
  common: {
    languageName: "Deutsch",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Ihre Bestellung",
  },
  // The door app.
  door: {
    ready: "Bereit",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
