CREATE TABLE "openapi_curations" (
	"realm_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"action" text NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"label" text,
	"keywords" text[] DEFAULT '{}'::text[] NOT NULL,
	"risk" text,
	"approval_required" boolean DEFAULT false NOT NULL,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "openapi_curations_realm_id_action_pk" PRIMARY KEY("realm_id","action")
);
--> statement-breakpoint
CREATE TABLE "openapi_operations" (
	"realm_id" text NOT NULL,
	"tenant_id" text NOT NULL,
	"action" text NOT NULL,
	"position" integer NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"card" jsonb NOT NULL,
	"contract" jsonb NOT NULL,
	CONSTRAINT "openapi_operations_realm_id_action_pk" PRIMARY KEY("realm_id","action")
);
--> statement-breakpoint
CREATE TABLE "openapi_realms" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"namespace" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"keywords" text[] DEFAULT '{}'::text[] NOT NULL,
	"base_url" text NOT NULL,
	"spec_source" text NOT NULL,
	"spec_url" text,
	"spec_version" text NOT NULL,
	"spec_sha256" text NOT NULL,
	"spec_gzip" "bytea" NOT NULL,
	"operation_count" integer NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"credential_sealed" text,
	"credential_kind" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "openapi_curations" ADD CONSTRAINT "openapi_curations_realm_id_openapi_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."openapi_realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_curations" ADD CONSTRAINT "openapi_curations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_curations" ADD CONSTRAINT "openapi_curations_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_operations" ADD CONSTRAINT "openapi_operations_realm_id_openapi_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."openapi_realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_operations" ADD CONSTRAINT "openapi_operations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_realms" ADD CONSTRAINT "openapi_realms_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openapi_realms" ADD CONSTRAINT "openapi_realms_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "openapi_curations_tenant" ON "openapi_curations" USING btree ("tenant_id","realm_id");--> statement-breakpoint
CREATE INDEX "openapi_operations_tenant" ON "openapi_operations" USING btree ("tenant_id","realm_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "openapi_realms_tenant_namespace" ON "openapi_realms" USING btree ("tenant_id","namespace");