import type { Catalogue } from "./shape";

/** Nederlands (nl): the keys of en.ts. */
export const nl: Catalogue = {
  common: {
    languageName: "Nederlands",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
    name: "Naam",
    email: "E-mail",
    coupon: "Kortingscode",
    ticketsHeading: "Tickets",
    detailsHeading: "Je gegevens",
    eventDate: "Datum",
    free: "Gratis",
    vatIncluded: "incl. {vat}% btw",
    volumePrice: "{count} of meer: {price} per stuk",
    remaining: "Nog {count} beschikbaar",
    soldOut: "Uitverkocht",
    amountHint: "Bestel minstens {min} en hoogstens {max}.",
    amountHintMin: "Bestel minstens {min}.",
    chooseOneDate: "Kies een datum",
    chooseDates: "Kies een of meer data",
    admits: "Deze passe-partout geeft toegang tot:",
    termsHeading: "Voorwaarden",
    termsAccept: "Ik ga akkoord met de voorwaarden",
    total: "Totaal",
    vat: "Waarvan btw",
    rsvp: "Na het bestellen krijg je een e-mail om je reservering te bevestigen.",
    notStarted: "De verkoop is nog niet begonnen.",
    opensAt: "De verkoop begint op {date}.",
    ended: "De verkoop is gesloten.",
    eventSoldOut: "Dit evenement is uitverkocht.",
    errorSummary: "Er is een probleem",
    invalidCount: "Vul een heel aantal tickets in.",
    invalidValue: "Deze waarde is niet geldig.",
    formExpired: "Dit formulier is verlopen. Controleer je bestelling en verstuur haar opnieuw.",
    unsupportedForm: "Het formulier kon niet worden gelezen. Verstuur het opnieuw.",
    captcha: "Controle",
    choose: "Kies…",
    notFoundTitle: "Evenement niet gevonden",
    notFound: "Op dit adres staat geen evenement.",
    description: "Tickets voor {name}",
    descriptionDate: "Tickets voor {name} op {date}",
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
