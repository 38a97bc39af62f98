import type { Catalogue } from "./shape";

/** Français (fr): the keys of en.ts. */
export const fr: Catalogue = {
  common: {
    languageName: "Français",
  },
  // The shop page (GET/POST /shop/<event_id>).
  shop: {
    submit: "Commander",
  },
  // The order page (GET /shop/orders/<uid>).
  orderPage: {
    title: "Votre commande",
    notFoundTitle: "Commande introuvable",
    notFound: "Il n'y a pas de commande à cette adresse. Veuillez vérifier le lien dans votre e-mail.",
    heading: "Commande {id}",
    orderedBy: "Commandée par {name}",
    status: "Statut",
    state: {
      awaitingPayment: "En attente de paiement.",
      paid: "Payée. Merci pour votre commande !",
      booked: "Réservée. Merci pour votre commande !",
      awaitingConfirmation: "En attente de votre confirmation : nous vous avons envoyé un e-mail, cliquez sur le lien qu'il contient pour confirmer votre commande.",
      confirmed: "Confirmée. Merci pour votre commande !",
      expired: "Expirée : cette commande n'a pas été payée à temps.",
      cancelled: "Annulée : cette commande n'a pas été payée.",
      failed: "Le paiement a échoué : cette commande n'a pas été payée.",
      refunded: "Remboursée : le paiement vous a été restitué.",
    },
    payBefore: "Veuillez payer avant le {deadline}.",
    pay: "Aller au paiement",
    pendingNote: "Cette page se met à jour d'elle-même tant que votre commande est en cours.",
    refresh: "Actualiser",
    tickets: "Billets",
    total: "Total",
    eventDate: "Date",
    download: "Télécharger vos billets",
    personalise: "Personnaliser vos billets",
    personaliseFirst: "Vos billets doivent être personnalisés avant de pouvoir être téléchargés.",
    invoice: "Télécharger la facture",
    preparing: "Vos billets sont en préparation : {ready} parties sur {parts} prêtes. Le lien de téléchargement apparaîtra ici dès qu'ils seront prêts.",
  },
  // The door app.
  door: {
    ready: "Prêt",
  },
  // Error texts by error code (domain/error-codes.ts), as a customer or door person reads them.
  errors: {},
};
