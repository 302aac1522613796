// The board realm's adapter: boards, columns and cards in Realmgate's database, per tenant, composed from its
// kind modules and card actions by the native toolkit. Gate two is the board's owner / shared-with ACL, which
// its columns and cards inherit; invisible objects answer not_found.
import { nativeAdapter } from "@/lib/realms/native/adapter";
import { actions } from "./actions";
import { kinds } from "./kinds";
import { manifest } from "./manifest";
import { refs } from "./refs";

export const adapter = nativeAdapter({ manifest, refs, kinds, actions, searchWithoutKind: "card" });
