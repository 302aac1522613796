import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents } from "@/db/schema";
import { makeTenant, type TestTenant } from "@/test-support";
import { createActor, revokeActor } from "@/lib/authz/actors";
import { auditCsvColumns, auditCsvStream, exportAuditQuery, neutraliseFormula } from "./csv";
import { recordAudit } from "./record";

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** A small RFC 4180 reader, enough to check what a spreadsheet would see. */
function parseCsv(s: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted && c === '"' && s[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ",") {
      row.push(cell);
      cell = "";
    } else if (!quoted && c === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else {
      cell += c;
    }
  }
  return rows;
}

async function events(t: TestTenant, event: string) {
  return t.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, t.tenantId), eq(auditEvents.event, event)));
}

describe("CSV cells a spreadsheet would run as formulas", () => {
  it.each([
    ["=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"],
    ["+1", "'+1"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tx", "'\tx"],
    ["plain reason", "plain reason"],
    ["a=b", "a=b"],
    ["", ""],
  ])("%j becomes %j", (input, output) => {
    expect(neutraliseFormula(input)).toBe(output);
  });
});

describe("audit CSV export", () => {
  it("has a header, one row per event newest first, names beside ids, and quoted, neutralised text", async () => {
    const t = await makeTenant();
    const { actor } = await createActor(t.db, t.users.bob!, { name: "Bot, \"the\" helper", kind: "automation", issue_token: false, token_expires_in_days: null });
    await revokeActor(t.db, t.users.bob!, actor.id, "=cmd|' /C calc'!A0");
    const csv = await text(await auditCsvStream(t.db, t.users.sam!, exportAuditQuery.parse({ event: "actor.revoked" })));
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([...auditCsvColumns]);
    expect(rows).toHaveLength(2);
    const row = Object.fromEntries(auditCsvColumns.map((c, i) => [c, rows[1]![i]]));
    expect(row).toMatchObject({ event: "actor.revoked", outcome: "ok", user_email: t.users.bob!.email, subject_id: actor.id, reason: "'=cmd|' /C calc'!A0" });
    expect(JSON.parse(row.details!)).toEqual({ grants_revoked: [] });

    const all = parseCsv(await text(await auditCsvStream(t.db, t.users.alice!, exportAuditQuery.parse({}))));
    const positions = all.slice(1).map((r) => Number(r[0]));
    expect(positions).toEqual([...positions].sort((a, b) => b - a));
    const created = all.find((r) => r[4] === "actor.created")!;
    expect(JSON.parse(created[17]!)).toEqual({ name: 'Bot, "the" helper', kind: "automation" });
  });

  it("pages through more events than one page and stops at max_rows", async () => {
    const t = await makeTenant();
    await t.db.transaction(async (tx) => {
      for (let i = 0; i < 1200; i++) {
        await recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "user", userId: t.users.bob!.userId }, outcome: "allow", operation: "object.list" });
      }
    });
    const every = parseCsv(await text(await auditCsvStream(t.db, t.users.alice!, exportAuditQuery.parse({ event: "tool.call" }))));
    expect(every).toHaveLength(1201);
    expect(new Set(every.slice(1).map((r) => r[0])).size).toBe(1200);
    const some = parseCsv(await text(await auditCsvStream(t.db, t.users.alice!, exportAuditQuery.parse({ event: "tool.call", max_rows: "700" }))));
    expect(some).toHaveLength(701);
  });

  it("gives just the header when nothing matches", async () => {
    const t = await makeTenant();
    const csv = await text(await auditCsvStream(t.db, t.users.alice!, exportAuditQuery.parse({ event: "grant.revoked" })));
    expect(csv).toBe(`${auditCsvColumns.join(",")}\n`);
  });

  it("is audited once per export (not once per page), and refused to members", async () => {
    const t = await makeTenant();
    await t.db.transaction(async (tx) => {
      for (let i = 0; i < 600; i++) await recordAudit(tx, { tenantId: t.tenantId, event: "tool.call", principal: { type: "system" }, outcome: "allow" });
    });
    await text(await auditCsvStream(t.db, t.users.sam!, exportAuditQuery.parse({ outcome: "allow" })));
    const exported = await events(t, "audit.exported");
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatchObject({ userId: t.users.sam!.userId, details: { filters: { outcome: "allow" }, max_rows: 10_000, viewer_role: "support" } });
    expect(await events(t, "support.viewed")).toHaveLength(0);
    await expect(auditCsvStream(t.db, t.users.bob!, exportAuditQuery.parse({}))).rejects.toMatchObject({ code: "forbidden" });
  });

  it("refuses unknown filters and out-of-range limits", () => {
    expect(exportAuditQuery.safeParse({ tenant_id: "tnt_x" }).success).toBe(false);
    expect(exportAuditQuery.safeParse({ max_rows: "0" }).success).toBe(false);
    expect(exportAuditQuery.safeParse({ max_rows: "100001" }).success).toBe(false);
  });
});
