CREATE TABLE "remote_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"namespace" text NOT NULL,
	"base_url" text NOT NULL,
	"manifest" jsonb NOT NULL,
	"manifest_version" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"secret_sealed" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"status_reason" text,
	"registered_by" text,
	"registered_via" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "remote_providers_status_check" CHECK ("remote_providers"."status" in ('active', 'unavailable'))
);
--> statement-breakpoint
CREATE TABLE "remote_registration_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"provider_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "remote_providers" ADD CONSTRAINT "remote_providers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_providers" ADD CONSTRAINT "remote_providers_registered_by_users_id_fk" FOREIGN KEY ("registered_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_registration_tokens" ADD CONSTRAINT "remote_registration_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_registration_tokens" ADD CONSTRAINT "remote_registration_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remote_registration_tokens" ADD CONSTRAINT "remote_registration_tokens_provider_id_remote_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."remote_providers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "remote_providers_tenant_namespace" ON "remote_providers" USING btree ("tenant_id","namespace");--> statement-breakpoint
CREATE UNIQUE INDEX "remote_registration_tokens_hash" ON "remote_registration_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "remote_registration_tokens_tenant" ON "remote_registration_tokens" USING btree ("tenant_id");