// The mail realm's adapter: translates the generic operations into Gmail REST API calls made with one of
// the authority's connected accounts. Gate two (account and claims) and every provider call go through
// lib/connections (openAccount), so the realm only speaks Gmail. The parts: refs.ts, gmail.ts (the wire),
// one file per kind (message.ts, thread.ts, label.ts), listing.ts (list, search, resolve), actions.ts,
// describe.ts.
import { AppError } from "@/lib/errors";
import type { RealmAdapter } from "@/lib/realms/contract";
import { runAction } from "./actions";
import { describeRefs } from "./describe";
import { open } from "./gmail";
import { getLabel } from "./label";
import { listing, resolveSelector } from "./listing";
import { READ_CLAIMS } from "./manifest";
import { getMessage } from "./message";
import { kindOf, parseMailRef } from "./refs";
import { getThread } from "./thread";

export { mailRef, parseMailRef } from "./refs";

function unsupported(what: string): never {
  throw new AppError("invalid_input", `mail does not support ${what}: mail is read, searched and changed through its actions (send, reply, forward, archive, label).`);
}

export const adapter: RealmAdapter = {
  parseRef(ref) {
    const r = parseMailRef(ref);
    return { kind: `mail.${r.type}`, account_id: r.accountId };
  },

  describeRefs,

  list: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: null, after: input.after, limit: input.limit, operation: "object.list" }),

  search: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: input.query, after: input.after, limit: input.limit, operation: "object.search" }),

  async get(ctx, { ref, full }) {
    const r = parseMailRef(ref);
    const s = await open(ctx, "object.get", READ_CLAIMS, { pinned: r.accountId });
    if (r.type === "message") return getMessage(ctx, s, r.id, full);
    if (r.type === "thread") return getThread(s, r.id);
    return getLabel(s, r.id);
  },

  action: (ctx, { action, ref, payload }) => runAction(ctx, action, ref, payload),

  resolve: (ctx, { kind, selector }) => resolveSelector(ctx, kindOf(kind), selector),

  upsert: () => unsupported("upsert_object"),
  delete: () => unsupported("delete_object"),
  hostFile: () => unsupported("host_file"),
};

