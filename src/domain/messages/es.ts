import type { Catalogue } from "./shape";

/** Español (es): the keys of en.ts. */
export const es: Catalogue = {
  common: {
    languageName: "Español",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Pedir",
    // The page's script (src/shop-app/shop-page.ts): the heading of its error summary, and what it says when
    // the post did not reach the service.
    errorSummary: "Hay un problema",
    networkError: "No se pudo contactar con la taquilla, así que su pedido no se envió. Compruebe su conexión y vuelva a pulsar el botón de pedido.",
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
