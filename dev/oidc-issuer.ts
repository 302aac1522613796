// Development fixture: a real local OpenID Connect provider (the `oidc-provider` package), so sign-in in
// tests runs the same code path as production. Its login page accepts any login name; known names map to
// demo identities. Nothing under lib/ knows this exists.
import type { AddressInfo } from "node:net";
import Provider, { type ClientMetadata } from "oidc-provider";

export type IssuerAccount = { email: string; name: string; email_verified?: boolean };

export type IssuerOptions = {
  port?: number;
  host?: string;
  clients: ClientMetadata[];
  accounts?: Record<string, IssuerAccount>;
  /** Extra scopes (beyond openid/email/profile/offline_access) this issuer grants. */
  scopes?: string[];
  /** Asked on every refresh: rotate the refresh token (the old one is then spent). Unset: oidc-provider's default. */
  rotateRefreshTokens?: () => boolean;
};

export const demoIssuerAccounts: Record<string, IssuerAccount> = {
  alice: { email: "alice@acme.test", name: "Alice Owner" },
  bob: { email: "bob@acme.test", name: "Bob Member" },
  sam: { email: "sam@acme.test", name: "Sam Support" },
};

export async function startOidcIssuer(opts: IssuerOptions): Promise<{ issuer: string; provider: Provider; close: () => Promise<void> }> {
  const host = opts.host ?? "127.0.0.1";
  const accounts = opts.accounts ?? demoIssuerAccounts;
  // Bind first so the issuer URL carries the real port.
  const { createServer } = await import("node:http");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: opts.clients,
    scopes: ["openid", "email", "profile", "offline_access", ...(opts.scopes ?? [])],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ["realmgate-dev-issuer-cookie-key"] },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    ...(opts.rotateRefreshTokens ? { rotateRefreshToken: opts.rotateRefreshTokens } : {}),
    findAccount: async (_ctx, id) => {
      const known = accounts[id];
      const acct = known ?? { email: `${id}@example.test`, name: id };
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: acct.email, email_verified: acct.email_verified ?? true, name: acct.name }),
      };
    },
  });
  provider.proxy = false;
  provider.on("grant.error", (_ctx: unknown, err: Error & { error_detail?: string }) => console.error("[issuer] grant.error", err.message, err.error_detail));
  server.on("request", provider.callback());
  return {
    issuer,
    provider,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
