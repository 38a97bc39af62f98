import type { Catalogue } from "./shape";

/** Deutsch (de): the keys of en.ts. */
export const de: Catalogue = {
  common: {
    languageName: "Deutsch",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
    // The page's script (src/shop-app/shop-page.ts): the heading of its error summary, and what it says when
    // the post did not reach the service.
    errorSummary: "Es gibt ein Problem",
    networkError: "Die Kasse war nicht erreichbar, Ihre Bestellung wurde nicht gesendet. Prüfen Sie Ihre Verbindung und drücken Sie erneut auf die Bestellschaltfläche.",
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
