// Delivery shaping of a let-in call's result: large results become a file URL instead of megabytes inline.
import type { RealmContext } from "@/lib/realms/contract";

/** Results larger than this are delivered as a file URL, never inline. */
export const MAX_INLINE_RESULT_BYTES = 256 * 1024;

/** The result, or (when larger than MAX_INLINE_RESULT_BYTES) a link to it stored as a file. */
export async function shapeResult(result: unknown, ctx: RealmContext, namespace: string): Promise<unknown> {
  const text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= MAX_INLINE_RESULT_BYTES) return result;
  const authority = ctx.principal.type === "user" ? ctx.principal.userId : ctx.principal.grantorId;
  const stored = await ctx.delivery.storeFile({ namespace, name: "result.json", contentType: "application/json", bytes: new TextEncoder().encode(text), ownerUserId: authority });
  return { truncated: true, bytes: Buffer.byteLength(text), result: await ctx.delivery.fileUrl(stored.fileId, { name: "result.json" }) };
}
