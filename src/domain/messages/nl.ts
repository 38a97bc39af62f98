import type { Catalogue } from "./shape";

/** Nederlands (nl): the keys of en.ts. */
export const nl: Catalogue = {
  common: {
    languageName: "Nederlands",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Bestellen",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Je bestelling",
    notFoundTitle: "Bestelling niet gevonden",
    notFound: "Op dit adres staat geen bestelling. Controleer de link in je e-mail.",
    heading: "Bestelling {id}",
    orderedBy: "Besteld door {name}",
    status: "Status",
    state: {
      awaitingPayment: "Wacht op betaling.",
      paid: "Betaald. Bedankt voor je bestelling!",
      booked: "Geboekt. Bedankt voor je bestelling!",
      awaitingConfirmation: "Wacht op je bevestiging: we hebben je een e-mail gestuurd, klik op de link daarin om je bestelling te bevestigen.",
      confirmed: "Bevestigd. Bedankt voor je bestelling!",
      expired: "Verlopen: deze bestelling is niet op tijd betaald.",
      cancelled: "Geannuleerd: deze bestelling is niet betaald.",
      failed: "De betaling is mislukt: deze bestelling is niet betaald.",
      refunded: "Terugbetaald: de betaling is aan je teruggestort.",
    },
    payBefore: "Betaal vóór {deadline}.",
    pay: "Naar de betaling",
    pendingNote: "Deze pagina werkt zichzelf bij zolang je bestelling loopt.",
    refresh: "Vernieuwen",
    tickets: "Tickets",
    total: "Totaal",
    eventDate: "Datum",
    download: "Download je tickets",
    personalise: "Personaliseer je tickets",
    personaliseFirst: "Je tickets moeten gepersonaliseerd worden voordat je ze kunt downloaden.",
    invoice: "Download de factuur",
    preparing: "Je tickets worden klaargemaakt: {ready} van {parts} delen klaar. De downloadlink verschijnt hier zodra ze klaar zijn.",
  },
  // The door app.
  door: {
    ready: "Klaar",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
