// Start-up data steps: TypeScript changes to existing rows that SQL alone cannot make (they need a realm's
// ref parser), run once each, after the SQL migrations and under the same lock.
import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const dataSteps = pgTable("data_steps", {
  name: text("name").primaryKey(),
  createdAt: createdAt(),
  /** What the step did, in a line (counts). */
  summary: text("summary").notNull(),
});
