import { defineConfig } from "drizzle-kit";

// Every file of db/schema/: the platform's tables (re-exported by index.ts) and one file per realm.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/*.ts",
  out: "./db/migrations",
});
