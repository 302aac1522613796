// One capability-search document (moved out of contract.ts, which re-exports it).
/**
 * One capability-search document: an (operation, catalog node) pair with the words it is found by. Capability
 * search (lib/catalog) builds them from a manifest's catalog, or takes the ones a realm brings (`Realm.capabilityDocs`).
 */
export type CapabilityDoc = {
  id: string;
  namespace: string;
  catalog_path: string;
  kind: string | null;
  operation: string;
  label: string;
  description: string;
  keywords: string;
  ids: string;
  /** `GET /search/person` for imported operations. */
  endpoint?: string;
  /** The operation's group words (tag, vendor category). */
  group?: string;
  /** Words for what the HTTP method does (`DELETE` → delete remove). */
  verbs?: string;
  /** Required input fields, space-separated (to say how near alternatives differ). */
  required?: string;
  risk?: string;
  deprecated?: boolean;
};
