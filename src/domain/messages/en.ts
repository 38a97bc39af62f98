/** English: the catalogue that names every key (domain/messages/index.ts). Placeholders are `{name}`. */
export const en = {
  common: {
    languageName: "English",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Order",
    name: "Name",
    email: "Email",
    coupon: "Coupon code",
    ticketsHeading: "Tickets",
    detailsHeading: "Your details",
    eventDate: "Date",
    free: "Free",
    vatIncluded: "incl. {vat}% VAT",
    volumePrice: "{count} or more: {price} each",
    remaining: "{count} left",
    soldOut: "Sold out",
    amountHint: "Order at least {min}, at most {max}.",
    amountHintMin: "Order at least {min}.",
    chooseOneDate: "Choose a date",
    chooseDates: "Choose one or more dates",
    admits: "This pass admits to:",
    termsHeading: "Terms",
    termsAccept: "I accept the terms",
    total: "Total",
    vat: "Of which VAT",
    rsvp: "After ordering you will get an email to confirm your booking.",
    notStarted: "The sale has not started yet.",
    opensAt: "It opens on {date}.",
    ended: "The sale has ended.",
    eventSoldOut: "This event is sold out.",
    errorSummary: "There is a problem",
    invalidCount: "Enter a whole number of tickets.",
    invalidValue: "This value is not valid.",
    formExpired: "This form has expired. Please check your order and send it again.",
    unsupportedForm: "The form could not be read. Please send it again.",
    captcha: "Verification",
    choose: "Choose…",
    notFoundTitle: "Event not found",
    notFound: "There is no event at this address.",
    description: "Tickets for {name}",
    descriptionDate: "Tickets for {name} on {date}",
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
