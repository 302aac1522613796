-- Audit lanes: a tenant's trail becomes a few chains (lanes), each with its own head, so that one busy tenant's
-- writers take whichever lane no open transaction holds instead of queueing on one row across their whole append.
-- Every existing record, head and checkpoint is lane 0: the chain as it was, unchanged (lib/audit/chain.ts hashes
-- and MACs lane 0 exactly as before). `pos` numbers a tenant's records across lanes in commit order, from
-- `audit_positions`.
ALTER TABLE "audit_heads" ADD COLUMN "lane" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_heads" DROP CONSTRAINT "audit_heads_pkey";--> statement-breakpoint
ALTER TABLE "audit_heads" ADD CONSTRAINT "audit_heads_tenant_id_lane_pk" PRIMARY KEY("tenant_id","lane");--> statement-breakpoint
ALTER TABLE "audit_checkpoints" ADD COLUMN "lane" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_checkpoints" DROP CONSTRAINT "audit_checkpoints_tenant_id_seq_pk";--> statement-breakpoint
ALTER TABLE "audit_checkpoints" ADD CONSTRAINT "audit_checkpoints_tenant_id_lane_seq_pk" PRIMARY KEY("tenant_id","lane","seq");--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "lane" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_tenant_id_seq_pk";--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_tenant_id_lane_seq_pk" PRIMARY KEY("tenant_id","lane","seq");--> statement-breakpoint
-- Every existing record is lane 0, numbered 1, 2, 3… per tenant in the order it committed: its pos is its seq. This
-- is the one UPDATE of audit_events a migration makes: it fills the new column, which no hash or MAC covers, with
-- the append-only trigger off for this transaction only.
ALTER TABLE "audit_events" ADD COLUMN "pos" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" DISABLE TRIGGER "audit_events_no_update_delete";--> statement-breakpoint
UPDATE "audit_events" SET "pos" = "seq";--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE TRIGGER "audit_events_no_update_delete";--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "pos" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_tenant_pos" ON "audit_events" USING btree ("tenant_id","pos");--> statement-breakpoint
CREATE TABLE "audit_positions" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"pos" bigint NOT NULL
);--> statement-breakpoint
INSERT INTO "audit_positions" ("tenant_id", "pos") SELECT "tenant_id", max("pos") FROM "audit_events" GROUP BY "tenant_id";
