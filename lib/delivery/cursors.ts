// Opaque, signed cursors. A cursor is bound to the tenant, the caller and the exact listing it came from:
// tampered, truncated, or replayed against another listing → `invalid_cursor`.
import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { CursorState } from "@/lib/realms/contract";
import { canonicalJson } from "@/lib/canonical-json";
import { deriveKey, hmac, safeEqual } from "./keys";

export type CursorBinding = { tenantId: string; principalId: string; tool: string; listing: unknown };

const bindingHash = (b: CursorBinding) =>
  createHash("sha256").update(canonicalJson([b.tenantId, b.principalId, b.tool, b.listing])).digest("base64url").slice(0, 22);

export function encodeCursor(state: CursorState, binding: CursorBinding): string {
  const body = Buffer.from(JSON.stringify({ s: state, b: bindingHash(binding) }), "utf8").toString("base64url");
  return `${body}.${hmac(deriveKey("cursor"), body)}`;
}

export function decodeCursor(cursor: string, binding: CursorBinding): CursorState {
  const bad = (why: string) => new AppError("invalid_cursor", `This cursor is not valid here: ${why}. Start the listing again without a cursor.`);
  const [body, sig, extra] = cursor.split(".");
  if (!body || !sig || extra !== undefined) throw bad("malformed");
  if (!safeEqual(sig, hmac(deriveKey("cursor"), body))) throw bad("altered or not issued by Realmgate");
  let parsed: { s?: unknown; b?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw bad("malformed");
  }
  if (parsed.b !== bindingHash(binding)) throw bad("issued for another listing or caller");
  if (!parsed.s || typeof parsed.s !== "object" || Array.isArray(parsed.s)) throw bad("malformed");
  return parsed.s as CursorState;
}
