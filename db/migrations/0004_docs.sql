CREATE TABLE "docs_comments" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "docs_comments_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"author_id" text NOT NULL,
	"via_actor" text,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "docs_documents" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"title" text NOT NULL,
	"owner_id" text NOT NULL,
	"shared_with" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "docs_documents_status_check" CHECK ("docs_documents"."status" in ('draft', 'review', 'published'))
);
--> statement-breakpoint
CREATE TABLE "docs_exports" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"document_id" text NOT NULL,
	"format" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "docs_tabs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"document_id" text NOT NULL,
	"title" text NOT NULL,
	"position" integer NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "docs_threads" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "docs_threads_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"document_id" text NOT NULL,
	"tab_id" text,
	"quote" text,
	"status" text DEFAULT 'open' NOT NULL,
	"created_by" text NOT NULL,
	"resolved_by" text,
	"resolved_via_actor" text,
	"resolved_at" timestamp with time zone,
	"resolution_note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "docs_threads_status_check" CHECK ("docs_threads"."status" in ('open', 'resolved'))
);
--> statement-breakpoint
ALTER TABLE "docs_comments" ADD CONSTRAINT "docs_comments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_comments" ADD CONSTRAINT "docs_comments_thread_id_docs_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."docs_threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_comments" ADD CONSTRAINT "docs_comments_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_documents" ADD CONSTRAINT "docs_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_documents" ADD CONSTRAINT "docs_documents_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_exports" ADD CONSTRAINT "docs_exports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_exports" ADD CONSTRAINT "docs_exports_document_id_docs_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."docs_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_exports" ADD CONSTRAINT "docs_exports_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_tabs" ADD CONSTRAINT "docs_tabs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_tabs" ADD CONSTRAINT "docs_tabs_document_id_docs_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."docs_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_threads" ADD CONSTRAINT "docs_threads_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_threads" ADD CONSTRAINT "docs_threads_document_id_docs_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."docs_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_threads" ADD CONSTRAINT "docs_threads_tab_id_docs_tabs_id_fk" FOREIGN KEY ("tab_id") REFERENCES "public"."docs_tabs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_threads" ADD CONSTRAINT "docs_threads_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs_threads" ADD CONSTRAINT "docs_threads_resolved_by_users_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "docs_comments_thread" ON "docs_comments" USING btree ("tenant_id","thread_id","seq");--> statement-breakpoint
CREATE INDEX "docs_documents_recent" ON "docs_documents" USING btree ("tenant_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "docs_documents_owner" ON "docs_documents" USING btree ("tenant_id","owner_id");--> statement-breakpoint
CREATE INDEX "docs_documents_shared" ON "docs_documents" USING gin ("shared_with");--> statement-breakpoint
CREATE INDEX "docs_exports_document" ON "docs_exports" USING btree ("tenant_id","document_id","created_at");--> statement-breakpoint
CREATE INDEX "docs_tabs_document" ON "docs_tabs" USING btree ("tenant_id","document_id","position");--> statement-breakpoint
CREATE INDEX "docs_threads_document" ON "docs_threads" USING btree ("tenant_id","document_id","seq");