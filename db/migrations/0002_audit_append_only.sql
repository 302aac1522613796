-- The audit trail is append-only: no role (not even the table owner) may UPDATE, DELETE or TRUNCATE it
-- through normal statements. Privileges are revoked from PUBLIC; the trigger also binds owners and
-- superusers, who bypass privileges. Only an operator who disables the trigger on purpose can edit rows —
-- and the hash chain (GET /api/v1/audit/verify) then names the first broken link.
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_no_update_delete BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC;
