/** English: the catalogue that names every key (domain/messages/index.ts). Placeholders are `{name}`. */
export const en = {
  common: {
    languageName: "English",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Order",
    // The page's script (src/shop-app/shop-page.ts): the heading of its error summary, and what it says when
    // the post did not reach the service.
    errorSummary: "There is a problem",
    networkError: "The box office could not be reached, so your order was not sent. Check your connection and press the order button again.",
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
