import { defineConfig } from "drizzle-kit";

// Generates SQL into migrations/; wrangler applies them (never `drizzle-kit push`).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
