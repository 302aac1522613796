// A page of lean items for list_objects and search_objects: the cursor is bound to the caller and the listing,
// and items the grant's scope does not reach are left out.
import { decodeCursor, encodeCursor } from "@/lib/delivery/cursors";
import type { CursorState, Filter, LeanItem, RealmContext } from "@/lib/realms/contract";
import type { RunCtx } from "../define";

type Listing = { kind: string | null; filter?: Filter; cursor?: string; limit?: number; query?: string };
type Fetch = (ctx: RealmContext, q: { filter: Filter; after: CursorState | null; limit: number }) => Promise<{ items: LeanItem[]; next: CursorState | null }>;

export async function listPage(r: RunCtx<unknown>, tool: "list_objects" | "search_objects", s: Listing, readPage: Fetch) {
  const binding = { tenantId: r.ctx.tenantId, principalId: r.principalId, tool, listing: { ns: r.manifest.namespace, kind: s.kind, filter: s.filter ?? {}, q: s.query ?? null } };
  const after = s.cursor ? decodeCursor(s.cursor, binding) : null;
  const page = await readPage(r.ctx, { filter: s.filter ?? {}, after, limit: r.pageSize(s.limit) });
  const covered = await r.inScope(page.items.map((i) => i.ref));
  return { items: page.items.filter((i) => covered.has(i.ref)), next_cursor: page.next ? encodeCursor(page.next, binding) : null };
}
