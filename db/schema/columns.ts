// Column helpers shared by every schema file.
import { text, timestamp } from "drizzle-orm/pg-core";

export const idColumn = () => text("id").primaryKey();
export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const timestampCol = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
