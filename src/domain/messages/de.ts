import type { Catalogue } from "./shape";

/** Deutsch (de): the keys of en.ts. */
export const de: Catalogue = {
  common: {
    languageName: "Deutsch",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
    name: "Name",
    email: "E-Mail",
    coupon: "Gutscheincode",
    ticketsHeading: "Tickets",
    detailsHeading: "Ihre Angaben",
    eventDate: "Datum",
    free: "Kostenlos",
    vatIncluded: "inkl. {vat} % MwSt.",
    volumePrice: "Ab {count} Stück: je {price}",
    remaining: "Noch {count} verfügbar",
    soldOut: "Ausverkauft",
    amountHint: "Bestellen Sie mindestens {min} und höchstens {max}.",
    amountHintMin: "Bestellen Sie mindestens {min}.",
    chooseOneDate: "Wählen Sie einen Termin",
    chooseDates: "Wählen Sie einen oder mehrere Termine",
    admits: "Dieser Pass gilt für:",
    termsHeading: "Bedingungen",
    termsAccept: "Ich akzeptiere die Bedingungen",
    total: "Gesamt",
    vat: "Davon MwSt.",
    rsvp: "Nach der Bestellung erhalten Sie eine E-Mail, um Ihre Reservierung zu bestätigen.",
    notStarted: "Der Verkauf hat noch nicht begonnen.",
    opensAt: "Er beginnt am {date}.",
    ended: "Der Verkauf ist beendet.",
    eventSoldOut: "Diese Veranstaltung ist ausverkauft.",
    errorSummary: "Es gibt ein Problem",
    invalidCount: "Geben Sie eine ganze Anzahl Tickets ein.",
    invalidValue: "Dieser Wert ist ungültig.",
    formExpired: "Dieses Formular ist abgelaufen. Bitte prüfen Sie Ihre Bestellung und senden Sie sie erneut.",
    unsupportedForm: "Das Formular konnte nicht gelesen werden. Bitte senden Sie es erneut.",
    captcha: "Überprüfung",
    choose: "Bitte wählen…",
    notFoundTitle: "Veranstaltung nicht gefunden",
    notFound: "Unter dieser Adresse gibt es keine Veranstaltung.",
    description: "Tickets für {name}",
    descriptionDate: "Tickets für {name} am {date}",
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
