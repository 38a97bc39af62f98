import type { Catalogue } from "./shape";

/** Français (fr): the keys of en.ts. */
export const fr: Catalogue = {
  common: {
    languageName: "Français",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Commander",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Votre commande",
  },
  // The door app.
  door: {
    ready: "Prêt",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
