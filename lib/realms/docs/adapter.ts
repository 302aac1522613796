// The docs realm's adapter: documents, tabs, comment threads, comments, exports and uploaded files in
// Realmgate's database, per tenant, composed from its kind modules and actions by the native toolkit. Children
// inherit their document's owner / shared-with ACL (gate two); a file is its uploader's, and also visible to the
// readers of the document it is attached to. What the caller cannot see answers not_found.
import { nativeAdapter } from "@/lib/realms/native/adapter";
import { actions } from "./actions";
import { kinds } from "./kinds";
import { uploadFile } from "./kinds/file";
import { manifest } from "./manifest";
import { refs } from "./refs";

/** Searching without a kind: documents first, then comment threads. */
export const adapter = nativeAdapter({ manifest, refs, kinds, actions, searchWithoutKind: ["document", "thread"], hostFile: uploadFile });
