CREATE TABLE "data_steps" (
	"name" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"summary" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "consent_requests" ADD COLUMN "named_refs" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "consent_requests" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "grants" ADD COLUMN "all_actions" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "grants" ADD COLUMN "suspensions" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
-- "All actions" becomes a flag: no action name can equal it any more.
UPDATE "grants" SET "all_actions" = true, "operations" = array_remove("operations", 'object.action.*') WHERE 'object.action.*' = ANY("operations");--> statement-breakpoint
UPDATE "consent_requests" SET "expires_at" = "last_attempt_at" + interval '24 hours' WHERE "status" = 'pending';
