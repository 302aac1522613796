import { describe, expect, it } from "vitest";
import { searchCapabilities } from "@/lib/catalog/search";
import { manifestSchema, operationKeysOf } from "@/lib/realms/contract";
import { manifest } from "./manifest";

/** The catalog path and operation that capability search ranks first for a query. */
function best(query: string): string {
  const [top] = searchCapabilities([manifest], query, { limit: 1 });
  return `${top?.catalog_path} ${top?.kind} ${top?.operation}`;
}

describe("docs manifest", () => {
  it("parses against the realm contract and labels every operation", () => {
    expect(() => manifestSchema.parse(manifest)).not.toThrow();
    expect(manifest.namespace).toBe("docs");
    for (const key of operationKeysOf(manifest)) expect(manifest.service_card.operation_labels[key], key).toBeTruthy();
    expect(operationKeysOf(manifest)).toContain("file.host");
    expect(manifest.delivery.files).toBe(true);
    expect(manifest.service_card.operation_labels["file.host"]).toBe("Upload a file");
  });

  it("declares docs.file and leads upload and attach intents to /files", () => {
    const file = manifest.kinds.find((k) => k.name === "docs.file")!;
    expect(file.operations).toEqual(["object.list", "object.get", "object.upsert", "object.delete"]);
    expect(file.fields.filter((f) => f.writable).map((f) => f.name).sort()).toEqual(["document", "name"]);
    expect(file.fields.find((f) => f.name === "download")!.description).toMatch(/checks again that you may still read the file/);
    const files = manifest.catalog.children.find((n) => n.path === "/files")!;
    expect(files.operations).toEqual(expect.arrayContaining(["file.host", "object.list", "object.get", "object.delete"]));
    // The /files node and its /files/upload child both answer an upload; either is the right operation.
    expect(best("upload a file")).toMatch(/^\/files(\/upload)? docs\.file file\.host$/);
    expect(best("put a file in docs")).toMatch(/^\/files(\/upload)? docs\.file file\.host$/);
    expect(best("attach a file to a document")).toBe("/files/attach docs.file object.action.attach_file");
    expect(best("delete a file")).toBe("/files/delete docs.file object.delete");
  });

  it("leads a 'reply to a comment' query to /discussion → docs.comment_thread → object.action.reply_comment", () => {
    const discussion = manifest.catalog.children.find((n) => n.path === "/discussion")!;
    expect(discussion.kinds).toContain("docs.comment_thread");
    const reply = discussion.children.find((n) => n.path === "/discussion/reply")!;
    expect(reply.kinds).toEqual(["docs.comment_thread"]);
    expect(reply.operations).toEqual(["object.action.reply_comment"]);
    expect(best("reply to a comment")).toBe("/discussion/reply docs.comment_thread object.action.reply_comment");
    expect(best("respond to feedback")).toBe("/discussion/reply docs.comment_thread object.action.reply_comment");
    expect(best("mark done")).toBe("/discussion/resolve docs.comment_thread object.action.resolve_thread");
    expect(best("close the thread")).toBe("/discussion/resolve docs.comment_thread object.action.resolve_thread");
    expect(best("download as html")).toBe("/documents/export docs.document object.action.export");
    expect(best("leave a comment on a doc")).toBe("/discussion/start docs.comment_thread object.upsert");
    expect(best("delete a document")).toBe("/documents/delete docs.document object.delete");
  });

  it("declares strict payload schemas for its actions", () => {
    const action = (name: string) => manifest.actions.find((a) => a.name === name)!;
    expect(action("reply_comment").payload_schema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["body"],
      properties: { body: { type: "string", minLength: 1, maxLength: 10_000 } },
    });
    expect(action("resolve_thread").payload_schema).toMatchObject({ type: "object", additionalProperties: false });
    expect(action("resolve_thread").payload_schema.required ?? []).toEqual([]);
    expect(action("export").payload_schema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["format"],
      properties: { format: { enum: ["markdown", "html", "text"] } },
    });
    expect(action("export").risk).toBe("read");
    expect(action("reply_comment").target_kind).toBe("docs.comment_thread");
  });
});
