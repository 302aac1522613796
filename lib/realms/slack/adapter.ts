// The Slack realm's adapter: translates the generic operations into Slack Web API calls made with one of the
// authority's connected workspaces. Gate two (account and claims) and every provider call go through
// lib/connections (openAccount), so the realm only speaks Slack. The parts: refs.ts, wire.ts (the wire),
// read.ts (channels, messages, files, people, list, search, resolve), actions.ts (and uploads), files.ts
// (streaming a file's bytes for a signed link), describe.ts.
import { AppError } from "@/lib/errors";
import type { RealmAdapter } from "@/lib/realms/contract";
import { receiveUpload, runAction } from "./actions";
import { describeRefs } from "./describe";
import { streamFile } from "./files";
import { FILE_READ_CLAIMS, READ_CLAIMS } from "./manifest";
import { getChannel, getFile, getMessage, getUser, listing, resolveSelector } from "./read";
import { channelRef, kindOf, parseSlackRef } from "./refs";
import { open } from "./wire";

export { channelRef, fileRef, messageRef, parseSlackRef, userRef } from "./refs";

function unsupported(what: string): never {
  throw new AppError("invalid_input", `slack does not support ${what}: Slack is read and searched, and changed through its actions (post_message, reply_in_thread, add_reaction, request_upload).`);
}

export const adapter: RealmAdapter = {
  parseRef(ref) {
    const r = parseSlackRef(ref);
    return { kind: `slack.${r.type}`, account_id: r.accountId };
  },

  describeRefs,

  list: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: null, after: input.after, limit: input.limit, operation: "object.list" }),

  search: (ctx, input) => listing(ctx, { type: kindOf(input.kind), filter: input.filter, query: input.query, after: input.after, limit: input.limit, operation: "object.search" }),

  async get(ctx, { ref }) {
    const r = parseSlackRef(ref);
    const s = await open(ctx, "object.get", r.type === "file" ? FILE_READ_CLAIMS : READ_CLAIMS, { pinned: r.accountId });
    if (r.type === "channel") return getChannel(s, r);
    if (r.type === "message") return getMessage(s, r);
    if (r.type === "file") return getFile(ctx, s, r.file);
    return getUser(s, r.user);
  },

  action: (ctx, { action, ref, payload }) => runAction(ctx, action, ref, payload),

  resolve: (ctx, { kind, selector }) => resolveSelector(ctx, kindOf(kind), selector),

  /** Syntax only: a message and a window are inside their channel, so a grant scoped to the channel reaches them. */
  async lineage(_ctx, { refs }) {
    const out: Record<string, string[]> = {};
    for (const ref of refs) {
      try {
        const r = parseSlackRef(ref);
        out[ref] = r.type === "message" || (r.type === "channel" && r.at) ? [channelRef(r.accountId, r.channel)] : [];
      } catch {
        out[ref] = [];
      }
    }
    return out;
  },

  streamFile,
  receiveUpload,

  upsert: () => unsupported("upsert_object"),
  delete: () => unsupported("delete_object"),
  hostFile: () => unsupported("host_file"),
};
