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
    notFoundTitle: "Order not found",
    notFound: "There is no order at this address. Please check the link in your email.",
    heading: "Order {id}",
    orderedBy: "Ordered by {name}",
    status: "Status",
    state: {
      awaitingPayment: "Waiting for payment.",
      paid: "Paid. Thank you for your order!",
      booked: "Booked. Thank you for your order!",
      awaitingConfirmation: "Waiting for your confirmation: we have sent you an email, please click the link in it to confirm your order.",
      confirmed: "Confirmed. Thank you for your order!",
      expired: "Expired: this order was not paid in time.",
      cancelled: "Cancelled: this order was not paid.",
      failed: "The payment failed: this order was not paid.",
      refunded: "Refunded: the payment has been returned to you.",
    },
    payBefore: "Please pay before {deadline}.",
    pay: "Go to the payment",
    pendingNote: "This page updates itself while your order is pending.",
    refresh: "Refresh",
    tickets: "Tickets",
    total: "Total",
    eventDate: "Date",
    download: "Download your tickets",
    personalise: "Personalise your tickets",
    personaliseFirst: "Your tickets must be personalised before they can be downloaded.",
    invoice: "Download the invoice",
    preparing: "Your tickets are being prepared: {ready} of {parts} parts done. The download link appears here when they are ready.",
  },
  // The door app.
  door: {
    ready: "Ready",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
} as const;
