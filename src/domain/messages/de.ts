import type { Catalogue } from "./shape";

/** Deutsch (de): the keys of en.ts. */
export const de: Catalogue = {
  common: {
    languageName: "Deutsch",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Ihre Bestellung",
    notFoundTitle: "Bestellung nicht gefunden",
    notFound: "Unter dieser Adresse gibt es keine Bestellung. Bitte prüfen Sie den Link in Ihrer E-Mail.",
    heading: "Bestellung {id}",
    orderedBy: "Bestellt von {name}",
    status: "Status",
    state: {
      awaitingPayment: "Wartet auf Zahlung.",
      paid: "Bezahlt. Vielen Dank für Ihre Bestellung!",
      booked: "Gebucht. Vielen Dank für Ihre Bestellung!",
      awaitingConfirmation: "Wartet auf Ihre Bestätigung: Wir haben Ihnen eine E-Mail geschickt, bitte klicken Sie auf den Link darin, um Ihre Bestellung zu bestätigen.",
      confirmed: "Bestätigt. Vielen Dank für Ihre Bestellung!",
      expired: "Abgelaufen: Diese Bestellung wurde nicht rechtzeitig bezahlt.",
      cancelled: "Storniert: Diese Bestellung wurde nicht bezahlt.",
      failed: "Die Zahlung ist fehlgeschlagen: Diese Bestellung wurde nicht bezahlt.",
      refunded: "Erstattet: Die Zahlung wurde Ihnen zurückerstattet.",
    },
    payBefore: "Bitte zahlen Sie bis {deadline}.",
    pay: "Zur Zahlung",
    pendingNote: "Diese Seite aktualisiert sich selbst, solange Ihre Bestellung offen ist.",
    refresh: "Aktualisieren",
    tickets: "Tickets",
    total: "Gesamt",
    eventDate: "Datum",
    download: "Tickets herunterladen",
    personalise: "Tickets personalisieren",
    personaliseFirst: "Ihre Tickets müssen personalisiert werden, bevor Sie sie herunterladen können.",
    invoice: "Rechnung herunterladen",
    preparing: "Ihre Tickets werden erstellt: {ready} von {parts} Teilen fertig. Der Download-Link erscheint hier, sobald sie fertig sind.",
  },
  // The door app.
  door: {
    ready: "Bereit",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
