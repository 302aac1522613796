// host_file into docs through the real dispatcher, lib/delivery and signed-URL redemption: the bytes an
// agent or a person puts in come back out of the link, and only for the uploader.
import { beforeAll, describe, expect, it } from "vitest";
import { dispatch } from "@/lib/tools/dispatch";
import { redeemSignedUrl } from "@/lib/tools/files";
import { call, codeOf, grant, makeActor, makeTenant, type TestTenant } from "@/test-support";

type Json = Record<string, unknown>;
type Link = { encoding: string; url: string; expires_at: string };

/** Redeem a signed link as the download route would. */
function redeem(t: TestTenant, link: string) {
  return redeemSignedUrl(t.db, link);
}

let t: TestTenant;
beforeAll(async () => {
  t = await makeTenant();
});

describe("host_file in docs", () => {
  it("stores a person's upload, gets it back as a link, and the link yields the same bytes", async () => {
    const alice = t.users.alice!;
    const text = "Meeting notes — ünïcode kept intact.\n";
    const hosted = (await dispatch(call(alice), "host_file", {
      namespace: "docs",
      name: "notes.txt",
      content_type: "text/plain",
      content_base64: Buffer.from(text, "utf8").toString("base64"),
    })) as Json;
    expect(hosted).toMatchObject({ ref: `docs:file:${hosted.file_id as string}`, encoding: "url", url: expect.stringContaining("/api/v1/files/fil_") });
    expect(Buffer.from((await redeem(t, hosted.url as string)).bytes).toString("utf8")).toBe(text);

    const got = (await dispatch(call(alice), "get_object", { ref: hosted.ref })) as Json;
    expect(got).toMatchObject({ kind: "docs.file", name: "notes.txt", content_type: "text/plain", size: Buffer.byteLength(text), owner: alice.email });
    expect(JSON.stringify(got)).not.toContain("Meeting notes");
    const download = got.download as Link;
    expect(download).toMatchObject({ encoding: "url", expires_at: expect.any(String) });
    const file = await redeem(t, download.url);
    expect(Buffer.from(file.bytes).toString("utf8")).toBe(text);
    expect(file).toMatchObject({ name: "notes.txt", contentType: "text/plain" });

    const listed = (await dispatch(call(alice), "list_objects", { namespace: "docs", kind: "docs.file" })) as { items: Json[] };
    expect(listed.items.map((i) => i.ref)).toContain(hosted.ref);
  });

  it("lets a document's reader download an attached file until it is no longer shared with him", async () => {
    const alice = t.users.alice!;
    const bob = t.users.bob!;
    const doc = (await dispatch(call(alice), "upsert_object", { namespace: "docs", kind: "docs.document", fields: { title: "Shared plan", shared_with: [bob.email] } })) as Json;
    const hosted = (await dispatch(call(alice), "host_file", { namespace: "docs", name: "plan.csv", content_type: "text/csv", content_base64: Buffer.from("a,b\n").toString("base64") })) as Json;
    await dispatch(call(alice), "upsert_object", { namespace: "docs", ref: hosted.ref, kind: "docs.file", fields: { document: doc.ref } });

    const seen = (await dispatch(call(bob), "get_object", { ref: hosted.ref })) as Json;
    expect(seen).toMatchObject({ document: doc.ref, download: { encoding: "url" } });
    const bobsLink = (seen.download as Link).url;
    expect(Buffer.from((await redeem(t, bobsLink)).bytes).toString("utf8")).toBe("a,b\n");
    // Alice's link is bound to alice: bob cannot pass it off as his.
    expect(await codeOf(redeem(t, (hosted.url as string).replace(`by=${alice.userId}`, `by=${bob.userId}`)))).toBe("bad_signature");
    // Once the document is no longer shared with him, his link stops working before it expires.
    await dispatch(call(alice), "upsert_object", { namespace: "docs", ref: doc.ref, kind: "docs.document", fields: { shared_with: [] } });
    expect(await codeOf(redeem(t, bobsLink))).toBe("forbidden");

    expect(await codeOf(dispatch(call(bob), "delete_object", { ref: hosted.ref }))).toBe("not_found");
    expect(await codeOf(dispatch(call(alice), "delete_object", { ref: hosted.ref }))).toBe("ok");
    expect(await codeOf(dispatch(call(alice), "get_object", { ref: hosted.ref }))).toBe("not_found");
    // The bytes went with it: a link minted before the delete no longer downloads.
    expect(await codeOf(redeem(t, hosted.url as string))).toBe("not_found");
  });

  it("lets a granted agent upload for its grantor and download what it uploaded", async () => {
    const alice = t.users.alice!;
    const agent = await makeActor(t, alice, "Uploader");
    const input = { namespace: "docs", name: "agent.md", content_type: "text/markdown", content_base64: Buffer.from("# From the agent\n").toString("base64") };
    expect(await codeOf(dispatch(call(agent), "host_file", input))).toBe("consent_required");
    await grant(t, alice, agent.actorId, "docs", ["file.host", "object.get"]);
    const hosted = (await dispatch(call(agent), "host_file", input)) as Json;
    const got = (await dispatch(call(agent), "get_object", { ref: hosted.ref })) as Json;
    expect(got).toMatchObject({ owner: alice.email, uploaded_via_actor: agent.actorId });
    expect(Buffer.from((await redeem(t, (got.download as Link).url)).bytes).toString("utf8")).toBe("# From the agent\n");
  });
});
