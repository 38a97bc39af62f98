import type { Catalogue } from "./shape";

/** Nederlands (nl): the keys of en.ts. */
export const nl: Catalogue = {
  common: {
    languageName: "Nederlands",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
    // The page's script (src/shop-app/shop-page.ts): the heading of its error summary, and what it says when
    // the post did not reach the service.
    errorSummary: "Er is een probleem",
    networkError: "De kassa was niet bereikbaar, dus je bestelling is niet verstuurd. Controleer je verbinding en druk nogmaals op de bestelknop.",
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
