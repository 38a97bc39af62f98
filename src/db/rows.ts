/** What each table's rows look like, for every layer: one place, no queries. */
import type {
  applicationPasswords,
  coupons,
  emails,
  events,
  inputFields,
  logs,
  orderClaims,
  orders,
  pdfTemplates,
  scanKeys,
  ticketTypes,
  tickets,
  users,
  webhookDeliveries,
  webhooks,
} from "./schema";

export type EmailRow = typeof emails.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApplicationPasswordRow = typeof applicationPasswords.$inferSelect;
export type ClaimRow = typeof orderClaims.$inferInsert;
export type OrderRow = typeof orders.$inferSelect;
export type LogRow = typeof logs.$inferSelect;
export type TicketTypeRow = typeof ticketTypes.$inferSelect;
export type ScanKeyRow = typeof scanKeys.$inferSelect;
export type TicketRow = typeof tickets.$inferSelect;
export type PdfTemplateRow = typeof pdfTemplates.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type CouponRow = typeof coupons.$inferSelect;
export type InputFieldRow = typeof inputFields.$inferSelect;
