CREATE TABLE "rate_limit_hits" (
	"bucket" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"weight" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limit_hits_bucket" ON "rate_limit_hits" USING btree ("bucket","window_start");--> statement-breakpoint
CREATE INDEX "rate_limit_hits_expires" ON "rate_limit_hits" USING btree ("expires_at");