CREATE TABLE "working_set_tools" (
	"tenant_id" text NOT NULL,
	"actor_id" text NOT NULL,
	"name" text NOT NULL,
	"namespace" text NOT NULL,
	"operation" text NOT NULL,
	"slot" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone NOT NULL,
	CONSTRAINT "working_set_tools_tenant_id_actor_id_name_pk" PRIMARY KEY("tenant_id","actor_id","name"),
	CONSTRAINT "working_set_tools_operation" UNIQUE("tenant_id","actor_id","namespace","operation"),
	CONSTRAINT "working_set_tools_slot_check" CHECK ("working_set_tools"."slot" in ('read', 'write'))
);
--> statement-breakpoint
ALTER TABLE "realm_settings" ALTER COLUMN "open_description" SET DEFAULT true;--> statement-breakpoint
ALTER TABLE "realm_settings" ADD COLUMN "selected_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "catalog_budget_bytes" integer DEFAULT 16384 NOT NULL;--> statement-breakpoint
ALTER TABLE "working_set_tools" ADD CONSTRAINT "working_set_tools_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "working_set_tools" ADD CONSTRAINT "working_set_tools_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "working_set_tools_realm" ON "working_set_tools" USING btree ("tenant_id","namespace","operation");--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_catalog_budget_check" CHECK ("tenants"."catalog_budget_bytes" between 8192 and 49152);