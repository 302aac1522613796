ALTER TABLE "ceiling_settings" DROP COLUMN "enabled";--> statement-breakpoint
ALTER TABLE "user_choices" DROP COLUMN "enabled";--> statement-breakpoint
ALTER TABLE "openapi_curations" DROP COLUMN "approval_required";