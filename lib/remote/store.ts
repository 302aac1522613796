// Remote provider registrations as rows: read per tenant, the signing secret sealed with the token vault (bound
// to tenant + registration, so a copied ciphertext opens nowhere else) and opened only to sign a call.
import { and, asc, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { remoteProviders, type RemoteProvider } from "@/db/schema";
import { seal, unseal, VaultError } from "@/lib/connections/vault";
import { AppError } from "@/lib/errors";

export type { RemoteProvider };

const binding = (tenantId: string, id: string) => ({ tenantId, userId: "remote-provider", accountId: id });

export function sealSecret(tenantId: string, id: string, secret: string): string {
  const s = seal(secret, binding(tenantId, id));
  return `${s.kid}.${s.data}`;
}

export function openSecret(row: Pick<RemoteProvider, "tenantId" | "id" | "secretSealed" | "namespace">): string {
  const dot = row.secretSealed.indexOf(".");
  try {
    return unseal({ kid: row.secretSealed.slice(0, dot), data: row.secretSealed.slice(dot + 1) }, binding(row.tenantId, row.id));
  } catch (cause) {
    if (!(cause instanceof VaultError)) throw cause;
    throw new AppError("service_unavailable", `The signing secret of the ${row.namespace} provider cannot be opened; an owner must register it again.`, { cause, details: { reason: "secret_unreadable", provider: row.namespace } });
  }
}

export const providerRows = (db: Executor, tenantId: string) => db.select().from(remoteProviders).where(eq(remoteProviders.tenantId, tenantId)).orderBy(asc(remoteProviders.namespace));

export async function providerByNamespace(db: Executor, tenantId: string, namespace: string): Promise<RemoteProvider | null> {
  const [row] = await db.select().from(remoteProviders).where(and(eq(remoteProviders.tenantId, tenantId), eq(remoteProviders.namespace, namespace))).limit(1);
  return row ?? null;
}

export async function providerById(db: Executor, tenantId: string, id: string): Promise<RemoteProvider | null> {
  const [row] = await db.select().from(remoteProviders).where(and(eq(remoteProviders.tenantId, tenantId), eq(remoteProviders.id, id))).limit(1);
  return row ?? null;
}
