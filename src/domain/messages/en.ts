/** English: the catalogue that names every key (domain/messages/index.ts). Placeholders are `{name}`. */
export const en = {
  common: {
    languageName: "English",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Order",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Your order",
  },
  // The door app.
  door: {
    ready: "Ready",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
} as const;
