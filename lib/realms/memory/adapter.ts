// The memory realm's adapter: memory items in Realmgate's database, per tenant, behind the owner / shared-with
// ACL (gate two), composed from its kind module and actions by the native toolkit.
import { nativeAdapter } from "@/lib/realms/native/adapter";
import { actions } from "./actions";
import { kinds } from "./kinds";
import { manifest } from "./manifest";
import { refs } from "./refs";

export const adapter = nativeAdapter({ manifest, refs, kinds, actions, searchWithoutKind: "item" });
