import type { Catalogue } from "./shape";

/** Español (es): the keys of en.ts. */
export const es: Catalogue = {
  common: {
    languageName: "Español",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Pedir",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Tu pedido",
    notFoundTitle: "Pedido no encontrado",
    notFound: "No hay ningún pedido en esta dirección. Comprueba el enlace de tu correo electrónico.",
    heading: "Pedido {id}",
    orderedBy: "Pedido por {name}",
    status: "Estado",
    state: {
      awaitingPayment: "Esperando el pago.",
      paid: "Pagado. ¡Gracias por tu pedido!",
      booked: "Reservado. ¡Gracias por tu pedido!",
      awaitingConfirmation: "Esperando tu confirmación: te hemos enviado un correo electrónico, haz clic en el enlace que contiene para confirmar tu pedido.",
      confirmed: "Confirmado. ¡Gracias por tu pedido!",
      expired: "Caducado: este pedido no se pagó a tiempo.",
      cancelled: "Cancelado: este pedido no se pagó.",
      failed: "El pago ha fallado: este pedido no se pagó.",
      refunded: "Reembolsado: se te ha devuelto el pago.",
    },
    payBefore: "Paga antes del {deadline}.",
    pay: "Ir al pago",
    pendingNote: "Esta página se actualiza sola mientras tu pedido está pendiente.",
    refresh: "Actualizar",
    tickets: "Entradas",
    total: "Total",
    eventDate: "Fecha",
    download: "Descarga tus entradas",
    personalise: "Personaliza tus entradas",
    personaliseFirst: "Tus entradas deben personalizarse antes de poder descargarlas.",
    invoice: "Descarga la factura",
    preparing: "Estamos preparando tus entradas: {ready} de {parts} partes listas. El enlace de descarga aparecerá aquí cuando estén listas.",
  },
  // The door app.
  door: {
    ready: "Listo",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
