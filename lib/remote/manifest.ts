// A remote provider's manifest document (`GET <base>/manifest`), validated: the envelope, the realm contract's
// manifest (lib/realms/contract.ts, the same rules as a built-in realm's), and what a remote realm adds — realm
// type "remote", ref templates Realmgate can check refs with, no connected accounts. A manifest that fails is
// never used; the report lists every problem (docs/provider-protocol.md).
import { manifestSchema, type RealmManifest } from "@/lib/realms/contract";
import { templateProblems } from "./refs";

import { PROTOCOL } from "@/provider-kit/protocol";
export const MAX_MANIFEST_BYTES = 512 * 1024;
const MAX_PROBLEMS = 50;

export type ManifestCheck = { ok: true; manifest: RealmManifest; manifestVersion: string } | { ok: false; problems: string[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Check a manifest document; `namespace`, when given, is the one the registration holds (it never changes). */
export function checkManifestDocument(doc: unknown, expect: { namespace?: string } = {}): ManifestCheck {
  if (!isObject(doc)) return { ok: false, problems: ["the manifest document is not a JSON object"] };
  const problems: string[] = [];
  if (doc.protocol !== PROTOCOL) problems.push(`protocol must be "${PROTOCOL}" (got ${JSON.stringify(doc.protocol)?.slice(0, 60)})`);
  const version = doc.manifest_version;
  if (typeof version !== "string" || !/^[\x21-\x7e]{1,64}$/.test(version)) problems.push("manifest_version must be 1–64 printable characters without spaces");
  const parsed = manifestSchema.safeParse(doc.manifest);
  if (!parsed.success) {
    for (const i of parsed.error.issues.slice(0, MAX_PROBLEMS)) problems.push(`manifest${i.path.length ? `.${i.path.join(".")}` : ""}: ${i.message}`);
    return { ok: false, problems };
  }
  const m = parsed.data;
  if (m.realm_type !== "remote") problems.push(`manifest.realm_type must be "remote" (got "${m.realm_type}")`);
  if (m.connection) problems.push("manifest.connection: a remote realm acts as its provider decides, not through people's connected accounts");
  if (expect.namespace && m.namespace !== expect.namespace) problems.push(`manifest.namespace changed from "${expect.namespace}" to "${m.namespace}": register the new namespace as a new provider`);
  problems.push(...templateProblems(m.namespace, m.kinds));
  if (problems.length) return { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
  return { ok: true, manifest: m, manifestVersion: version as string };
}
