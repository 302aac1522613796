// The freight desk's operation handlers for the kit's server: gate two first (freight:read for every call but
// `about`), then the domain code. No upsert, delete or host_file: the desk changes its data through actions only,
// and the kit answers those operations not_found.
import { invalidInput, notFound } from "../../provider-kit/errors";
import type { ProviderHandlers } from "../../provider-kit/server";
import type { AuthContext, OperationResults, RefDescription } from "../../provider-kit/types";
import { runAction } from "./actions";
import type { Db } from "./db";
import { receiveUpload, streamFile } from "./files";
import { requireClaims, scopeFilter } from "./gate";
import { CLAIM_READ, MANIFEST_VERSION } from "./manifest";
import { FILTERS, KINDS, kindOf, page } from "./query";
import { parseRef, type Kind } from "./refs";
import { resolveSelector } from "./selectors";
import { objectOf, present, rowById, type Row } from "./store";

const read = (db: Db, ctx: AuthContext) => requireClaims(db, ctx, [CLAIM_READ]);

const refList = (refs: unknown): string[] => {
  if (!Array.isArray(refs) || refs.some((r) => typeof r !== "string") || refs.length > 500) throw invalidInput("refs must be a list of at most 500 refs", "refs");
  return refs as string[];
};

async function rowOfRef(db: Db, ref: string): Promise<{ kind: Kind; row: Row } | null> {
  const p = parseRef(ref);
  if (!p) return null;
  const row = await rowById(db, p.kind, p.id);
  return row ? { kind: p.kind, row } : null;
}

export function freightHandlers(db: Db, now: () => Date): Partial<ProviderHandlers> {
  return {
    // Liveness only (the breaker's half-open probe may call it): it touches the database but tells nothing about
    // what is in it, so it asks no claim.
    about: async () => {
      await db.query("select 1");
      return { status: "ok", notes: ["Freight desk: shipments, carriers, exceptions and proofs of delivery.", `Manifest version ${MANIFEST_VERSION}.`] };
    },

    list: async (ctx, input) => {
      await read(db, ctx);
      const kind = kindOf(input.kind);
      return page(db, [kind], { filter: input.filter ?? {}, query: null, scope: scopeFilter(ctx.scope), now: now(), cursor: input.cursor ?? null, limit: input.limit });
    },

    search: async (ctx, input) => {
      await read(db, ctx);
      if (typeof input.query !== "string") throw invalidInput("query must be text", "query");
      const filter = input.filter ?? {};
      // Without a kind: every kind that takes all the filters given (all kinds when there are none).
      const kinds = input.kind ? [kindOf(input.kind)] : KINDS.filter((k) => Object.keys(filter).every((f) => FILTERS[k].includes(f)));
      if (!kinds.length) throw invalidInput("no kind takes all of these filters; name a kind", "filter");
      return page(db, kinds, { filter, query: input.query.trim(), scope: scopeFilter(ctx.scope), now: now(), cursor: input.cursor ?? null, limit: input.limit });
    },

    get: async (ctx, input) => {
      await read(db, ctx);
      const found = typeof input.ref === "string" ? await rowOfRef(db, input.ref) : null;
      if (!found) throw notFound(`no freight object ${String(input.ref)}`);
      return objectOf(found.kind, found.row, now(), input.full === true);
    },

    action: async (ctx, input) => runAction(db, ctx, input, now()),

    resolve_selector: async (ctx, input) => {
      await read(db, ctx);
      const selector = input.selector && typeof input.selector === "object" ? input.selector : {};
      return resolveSelector(db, { kind: kindOf(input.kind), selector }, scopeFilter(ctx.scope), now());
    },

    describe_refs: async (ctx, input) => {
      await read(db, ctx);
      const out: OperationResults["describe_refs"] = {};
      for (const ref of refList(input.refs)) {
        const found = await rowOfRef(db, ref);
        if (!found) {
          out[ref] = null;
          continue;
        }
        const p = present(found.kind, found.row, now());
        out[ref] = { kind: found.kind, label: p.label, summary: p.summary, lineage: p.lineage } satisfies RefDescription;
      }
      return out;
    },

    lineage: async (ctx, input) => {
      await read(db, ctx);
      const out: OperationResults["lineage"] = {};
      for (const ref of refList(input.refs)) {
        const found = await rowOfRef(db, ref);
        out[ref] = found ? present(found.kind, found.row, now()).lineage : [];
      }
      return out;
    },

    stream_file: async (ctx, input) => {
      await read(db, ctx);
      return streamFile(db, input);
    },

    receive_upload: async (ctx, input) => {
      await read(db, ctx);
      return receiveUpload(db, ctx, input, now());
    },
  };
}
