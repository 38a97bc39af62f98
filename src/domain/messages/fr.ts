import type { Catalogue } from "./shape";

/** Français (fr): the keys of en.ts. */
export const fr: Catalogue = {
  common: {
    languageName: "Français",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Commander",
    // The page's script (src/shop-app/shop-page.ts): the heading of its error summary, and what it says when
    // the post did not reach the service.
    errorSummary: "Il y a un problème",
    networkError: "La billetterie n’a pas pu être jointe : votre commande n’a pas été envoyée. Vérifiez votre connexion et appuyez de nouveau sur le bouton de commande.",
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
