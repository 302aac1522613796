CREATE TABLE "audit_checkpoints" (
	"tenant_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"mac" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"kid" text NOT NULL,
	"sig" text NOT NULL,
	CONSTRAINT "audit_checkpoints_tenant_id_seq_pk" PRIMARY KEY("tenant_id","seq")
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "kid" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "mac" text;--> statement-breakpoint
-- Checkpoints are append-only like the events they seal (see 0002_audit_append_only.sql): no role, owner or
-- superuser included, may UPDATE, DELETE or TRUNCATE them through normal statements.
CREATE OR REPLACE FUNCTION audit_checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_checkpoints is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_update_delete BEFORE UPDATE OR DELETE ON audit_checkpoints FOR EACH ROW EXECUTE FUNCTION audit_checkpoints_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION audit_checkpoints_append_only();
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON audit_checkpoints FROM PUBLIC;
