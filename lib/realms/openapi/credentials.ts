// The credential an imported service is called with (set by the tenant owner), sealed at rest with the
// token vault (AES-256-GCM, key id recorded, bound to tenant + realm so a copied ciphertext does not open).
import { z } from "zod";
import { seal, unseal, VaultError } from "@/lib/connections/vault";
import { AppError } from "@/lib/errors";
import { fieldValueProblem, isFramingHeader } from "./headers";

const noNewlines = (s: string) => !/[\r\n\0]/.test(s);
const secret = z.string().min(1).max(8192).refine(noNewlines, "must not contain line breaks");
/** A secret sent in a header: a valid field value (no control characters, nothing above U+00FF). */
const headerSecret = secret.refine((s) => fieldValueProblem(s) === null, "must be printable ASCII or Latin-1 (it is sent in a header)");
/** An HTTP header name (RFC 9110 token), and not one the request itself owns (framing, hop-by-hop, body type, cookies). */
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "must be an HTTP header name")
  .refine((n) => !isFramingHeader(n) && !["content-type", "cookie"].includes(n.toLowerCase()), "is set by Realmgate");

export const credentialSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("bearer"), token: headerSecret }),
  z.strictObject({ type: z.literal("header"), name: headerName, value: headerSecret }),
  z.strictObject({ type: z.literal("query"), name: z.string().regex(/^[A-Za-z0-9_.~-]{1,100}$/), value: secret }),
  z.strictObject({ type: z.literal("basic"), username: secret, password: z.string().max(8192).refine(noNewlines, "must not contain line breaks") }),
]);
export type Credential = z.infer<typeof credentialSchema>;

const binding = (tenantId: string, realmId: string) => ({ tenantId, userId: "openapi-realm", accountId: realmId });

/** `<key id>.<sealed>`: the key id travels with the record so keys can rotate. */
export function sealCredential(tenantId: string, realmId: string, cred: Credential): string {
  const s = seal(JSON.stringify(cred), binding(tenantId, realmId));
  return `${s.kid}.${s.data}`;
}

export function openCredential(tenantId: string, realmId: string, sealed: string): Credential {
  const dot = sealed.indexOf(".");
  try {
    const plain = unseal({ kid: sealed.slice(0, dot), data: sealed.slice(dot + 1) }, binding(tenantId, realmId));
    const parsed = credentialSchema.safeParse(JSON.parse(plain));
    if (parsed.success) return parsed.data;
    // Stored before a rule it breaks (a header Realmgate now owns, a value no header can carry).
    throw new AppError("service_unavailable", "The credential stored for this service is no longer accepted; the tenant owner must set it again.", {
      details: { reason: "credential_invalid", issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
    });
  } catch (cause) {
    if (!(cause instanceof VaultError)) throw cause;
    throw new AppError("service_unavailable", "The credential stored for this service cannot be opened; the tenant owner must set it again.", {
      cause,
      details: { reason: "credential_unreadable" },
    });
  }
}

/** What people may see of a credential: its kind and, for header/query keys, the name — never the secret. */
export function describeCredential(kind: string | null, sealed: string | null): { type: string; configured: boolean } {
  return { type: kind ?? "none", configured: sealed !== null };
}
