CREATE TABLE "realm_settings" (
	"tenant_id" text NOT NULL,
	"namespace" text NOT NULL,
	"open_description" boolean NOT NULL,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "realm_settings_tenant_id_namespace_pk" PRIMARY KEY("tenant_id","namespace")
);
--> statement-breakpoint
ALTER TABLE "realm_settings" ADD CONSTRAINT "realm_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;