import { z } from "zod";

/** Wire-level field types shared by the request schemas. */

export const emailAddress = z
  .string()
  .trim()
  .max(100, "must be at most 100 characters")
  .pipe(z.email("must be a valid email address"));

export const eventIdList = z
  .array(z.number().int().positive("must be event ids"))
  .max(1000)
  .transform((ids) => [...new Set(ids)].sort((a, b) => a - b));
