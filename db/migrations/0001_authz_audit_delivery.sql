CREATE TABLE "actor_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"actor_id" text NOT NULL,
	"display_prefix" text NOT NULL,
	"hash" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "actor_tokens_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "actors" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"grantor_id" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"client_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	"revoke_reason" text,
	CONSTRAINT "actors_kind_check" CHECK ("actors"."kind" in ('hosted_agent', 'mcp_client', 'automation'))
);
--> statement-breakpoint
CREATE TABLE "ceiling_settings" (
	"tenant_id" text NOT NULL,
	"namespace" text NOT NULL,
	"operation" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ceiling_settings_tenant_id_namespace_operation_pk" PRIMARY KEY("tenant_id","namespace","operation")
);
--> statement-breakpoint
CREATE TABLE "consent_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"actor_id" text NOT NULL,
	"grantor_id" text NOT NULL,
	"namespace" text NOT NULL,
	"operations" text[] NOT NULL,
	"resource_scope" jsonb,
	"ref" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" bigint DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"grant_id" text
);
--> statement-breakpoint
CREATE TABLE "grants" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"actor_id" text NOT NULL,
	"grantor_id" text NOT NULL,
	"namespace" text NOT NULL,
	"operations" text[] NOT NULL,
	"resource_scope" jsonb,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"consent_request_id" text,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	"revoke_reason" text
);
--> statement-breakpoint
CREATE TABLE "user_choices" (
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"namespace" text NOT NULL,
	"operation" text NOT NULL,
	"enabled" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_choices_tenant_id_user_id_namespace_operation_pk" PRIMARY KEY("tenant_id","user_id","namespace","operation")
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"tenant_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"event" text NOT NULL,
	"request_id" text,
	"principal_type" text NOT NULL,
	"user_id" text,
	"actor_id" text,
	"namespace" text,
	"operation" text,
	"ref" text,
	"outcome" text NOT NULL,
	"gate" text,
	"reason" text,
	"subject_id" text,
	"details" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_events_tenant_id_seq_pk" PRIMARY KEY("tenant_id","seq")
);
--> statement-breakpoint
CREATE TABLE "audit_heads" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"namespace" text NOT NULL,
	"owner_user_id" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"tenant_id" text NOT NULL,
	"principal_id" text NOT NULL,
	"tool" text NOT NULL,
	"key" text NOT NULL,
	"body_hash" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_records_tenant_id_principal_id_tool_key_pk" PRIMARY KEY("tenant_id","principal_id","tool","key")
);
--> statement-breakpoint
ALTER TABLE "actor_tokens" ADD CONSTRAINT "actor_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actor_tokens" ADD CONSTRAINT "actor_tokens_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actors" ADD CONSTRAINT "actors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actors" ADD CONSTRAINT "actors_grantor_id_users_id_fk" FOREIGN KEY ("grantor_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ceiling_settings" ADD CONSTRAINT "ceiling_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_requests" ADD CONSTRAINT "consent_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_requests" ADD CONSTRAINT "consent_requests_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consent_requests" ADD CONSTRAINT "consent_requests_grantor_id_users_id_fk" FOREIGN KEY ("grantor_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_actor_id_actors_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."actors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "grants" ADD CONSTRAINT "grants_grantor_id_users_id_fk" FOREIGN KEY ("grantor_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_choices" ADD CONSTRAINT "user_choices_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_choices" ADD CONSTRAINT "user_choices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "actor_tokens_actor" ON "actor_tokens" USING btree ("actor_id");--> statement-breakpoint
CREATE INDEX "actors_tenant_grantor" ON "actors" USING btree ("tenant_id","grantor_id");--> statement-breakpoint
CREATE INDEX "consent_requests_grantor" ON "consent_requests" USING btree ("tenant_id","grantor_id","status");--> statement-breakpoint
CREATE INDEX "grants_actor_ns" ON "grants" USING btree ("tenant_id","actor_id","namespace");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_id" ON "audit_events" USING btree ("id");--> statement-breakpoint
CREATE INDEX "audit_events_tenant_at" ON "audit_events" USING btree ("tenant_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_subject" ON "audit_events" USING btree ("tenant_id","subject_id");--> statement-breakpoint
CREATE INDEX "audit_events_actor" ON "audit_events" USING btree ("tenant_id","actor_id");--> statement-breakpoint
CREATE INDEX "files_tenant" ON "files" USING btree ("tenant_id");