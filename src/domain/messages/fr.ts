import type { Catalogue } from "./shape";

/** Français (fr): the keys of en.ts. */
export const fr: Catalogue = {
  common: {
    languageName: "Français",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Commander",
    name: "Nom",
    email: "E-mail",
    coupon: "Code promo",
    ticketsHeading: "Billets",
    detailsHeading: "Vos coordonnées",
    eventDate: "Date",
    free: "Gratuit",
    vatIncluded: "TVA {vat} % incluse",
    volumePrice: "À partir de {count} : {price} l’unité",
    remaining: "Encore {count} disponibles",
    soldOut: "Complet",
    amountHint: "Commandez au moins {min} et au plus {max}.",
    amountHintMin: "Commandez au moins {min}.",
    chooseOneDate: "Choisissez une date",
    chooseDates: "Choisissez une ou plusieurs dates",
    admits: "Ce pass donne accès à :",
    termsHeading: "Conditions",
    termsAccept: "J’accepte les conditions",
    total: "Total",
    vat: "Dont TVA",
    rsvp: "Après la commande, vous recevrez un e-mail pour confirmer votre réservation.",
    notStarted: "La vente n’a pas encore commencé.",
    opensAt: "Elle ouvre le {date}.",
    ended: "La vente est terminée.",
    eventSoldOut: "Cet événement est complet.",
    errorSummary: "Il y a un problème",
    invalidCount: "Saisissez un nombre entier de billets.",
    invalidValue: "Cette valeur n’est pas valide.",
    formExpired: "Ce formulaire a expiré. Vérifiez votre commande et envoyez-la à nouveau.",
    unsupportedForm: "Le formulaire n’a pas pu être lu. Envoyez-le à nouveau.",
    captcha: "Vérification",
    choose: "Choisissez…",
    notFoundTitle: "Événement introuvable",
    notFound: "Il n’y a aucun événement à cette adresse.",
    description: "Billets pour {name}",
    descriptionDate: "Billets pour {name} le {date}",
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
