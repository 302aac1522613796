CREATE TABLE "connected_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"api" text NOT NULL,
	"external_id" text NOT NULL,
	"email" text,
	"label" text NOT NULL,
	"claims" text[] NOT NULL,
	"scopes" text[] NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"secret_kid" text,
	"secret" text,
	"token_expires_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "connected_accounts_status_check" CHECK ("connected_accounts"."status" in ('active', 'needs_reconnect', 'revoked'))
);
--> statement-breakpoint
CREATE TABLE "connection_flows" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"intent" text NOT NULL,
	"account_id" text,
	"state_hash" text NOT NULL,
	"code_verifier" text NOT NULL,
	"nonce" text NOT NULL,
	"scopes" text[] NOT NULL,
	"claims" text[] NOT NULL,
	"label" text,
	"return_to" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	CONSTRAINT "connection_flows_state_hash_unique" UNIQUE("state_hash"),
	CONSTRAINT "connection_flows_intent_check" CHECK ("connection_flows"."intent" in ('connect', 'upgrade', 'reconnect'))
);
--> statement-breakpoint
ALTER TABLE "connected_accounts" ADD CONSTRAINT "connected_accounts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connected_accounts" ADD CONSTRAINT "connected_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connection_flows" ADD CONSTRAINT "connection_flows_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connection_flows" ADD CONSTRAINT "connection_flows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "connected_accounts_external" ON "connected_accounts" USING btree ("tenant_id","user_id","provider","external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "connected_accounts_label" ON "connected_accounts" USING btree ("tenant_id","user_id",lower("label")) WHERE "connected_accounts"."status" <> 'revoked';--> statement-breakpoint
CREATE INDEX "connected_accounts_user" ON "connected_accounts" USING btree ("tenant_id","user_id");--> statement-breakpoint
CREATE INDEX "connection_flows_user" ON "connection_flows" USING btree ("tenant_id","user_id");