CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"actor_id" text NOT NULL,
	"grantor_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"tool" text NOT NULL,
	"namespace" text NOT NULL,
	"operation" text NOT NULL,
	"ref" text,
	"payload_digest" text NOT NULL,
	"input" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"note" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"consumed_at" timestamp with time zone,
	"result" jsonb,
	"void_reason" text,
	CONSTRAINT "approvals_status_check" CHECK ("approvals"."status" in ('pending', 'approved', 'denied', 'expired', 'consumed', 'void'))
);
--> statement-breakpoint
ALTER TABLE "ceiling_settings" ADD COLUMN "mode" text;--> statement-breakpoint
UPDATE "ceiling_settings" SET "mode" = CASE WHEN "enabled" THEN 'on' ELSE 'off' END;--> statement-breakpoint
ALTER TABLE "ceiling_settings" ALTER COLUMN "mode" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "ceiling_settings" ALTER COLUMN "enabled" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "user_choices" ADD COLUMN "mode" text;--> statement-breakpoint
UPDATE "user_choices" SET "mode" = CASE WHEN "enabled" THEN 'on' ELSE 'off' END;--> statement-breakpoint
ALTER TABLE "user_choices" ALTER COLUMN "mode" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "user_choices" ALTER COLUMN "enabled" DROP NOT NULL;--> statement-breakpoint
-- Tenants made before approvals existed keep their destructive operations on; new ones start at ask.
ALTER TABLE "tenants" ADD COLUMN "destructive_default" text DEFAULT 'on' NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ALTER COLUMN "destructive_default" SET DEFAULT 'ask';--> statement-breakpoint
ALTER TABLE "openapi_curations" ADD COLUMN "exact_grant_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "openapi_curations" SET "exact_grant_only" = "approval_required";--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_grantor_id_users_id_fk" FOREIGN KEY ("grantor_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approvals_grantor" ON "approvals" USING btree ("tenant_id","grantor_id","status");--> statement-breakpoint
CREATE INDEX "approvals_actor" ON "approvals" USING btree ("tenant_id","actor_id","status");--> statement-breakpoint
ALTER TABLE "ceiling_settings" ADD CONSTRAINT "ceiling_settings_mode_check" CHECK ("ceiling_settings"."mode" in ('off', 'ask', 'on'));--> statement-breakpoint
ALTER TABLE "user_choices" ADD CONSTRAINT "user_choices_mode_check" CHECK ("user_choices"."mode" in ('off', 'ask', 'on'));
