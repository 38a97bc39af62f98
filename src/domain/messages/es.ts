import type { Catalogue } from "./shape";

/** Español (es): the keys of en.ts. */
export const es: Catalogue = {
  common: {
    languageName: "Español",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Pedir",
    name: "Nombre",
    email: "Correo electrónico",
    coupon: "Código de cupón",
    ticketsHeading: "Entradas",
    detailsHeading: "Tus datos",
    eventDate: "Fecha",
    free: "Gratis",
    vatIncluded: "IVA del {vat} % incluido",
    volumePrice: "Desde {count}: {price} cada una",
    remaining: "Quedan {count}",
    soldOut: "Agotado",
    amountHint: "Pide al menos {min} y como máximo {max}.",
    amountHintMin: "Pide al menos {min}.",
    chooseOneDate: "Elige una fecha",
    chooseDates: "Elige una o varias fechas",
    admits: "Este abono da acceso a:",
    termsHeading: "Condiciones",
    termsAccept: "Acepto las condiciones",
    total: "Total",
    vat: "IVA incluido",
    rsvp: "Después de pedir recibirás un correo para confirmar tu reserva.",
    notStarted: "La venta aún no ha empezado.",
    opensAt: "Empieza el {date}.",
    ended: "La venta ha terminado.",
    eventSoldOut: "Este evento está agotado.",
    errorSummary: "Hay un problema",
    invalidCount: "Introduce un número entero de entradas.",
    invalidValue: "Este valor no es válido.",
    formExpired: "Este formulario ha caducado. Revisa tu pedido y envíalo de nuevo.",
    unsupportedForm: "No se pudo leer el formulario. Envíalo de nuevo.",
    captcha: "Verificación",
    choose: "Elige…",
    notFoundTitle: "Evento no encontrado",
    notFound: "No hay ningún evento en esta dirección.",
    description: "Entradas para {name}",
    descriptionDate: "Entradas para {name} el {date}",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Tu pedido",
  },
  // The door app.
  door: {
    ready: "Listo",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
