// The names the support console puts on ids the audit trail records but its directory (people, agents) does not
// carry: connected accounts, providers and permissions (claims) as the Connection Hub names them. The server builds
// `AuditNames` (./audit.ts); the console reads it through components/audit/names.ts.

/** A connected account as its owner named it (label) and the address it signs in as. */
export type AccountName = { label: string; email: string | null; provider: string };

export type AuditNames = {
  /** Connected accounts the events name (scopes, subjects), by id. */
  accounts: Record<string, AccountName>;
  /** Provider config id (`devmail`) → its label ("Demo mail (local)"), every provider this deployment knows. */
  providers: Record<string, string>;
  /** Claim (`gmail:read`) → what a person agrees to ("Read your mail and labels"), every API family's. */
  claims: Record<string, string>;
};
