import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DEV_PROVIDER_ID, signIn, signInMethods } from "@/lib/auth/next-auth";
import { optionalPageUser } from "@/lib/auth/page-session";
import { safeReturnPath } from "@/lib/input/return-to";

export const metadata: Metadata = { title: "Sign in" };

const errorText: Record<string, string> = {
  CredentialsSignin: "That email and password did not match a development account.",
  AccessDenied: "The identity provider refused the sign-in.",
  Configuration: "Sign-in is misconfigured on the server. Ask your administrator.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const returnTo = safeReturnPath(sp.callbackUrl);
  if (await optionalPageUser()) redirect(returnTo);
  const methods = signInMethods();
  const error = typeof sp.error === "string" ? (errorText[sp.error] ?? "Sign-in failed. Please try again.") : null;
  const signedOutEverywhere = sp.notice === "signed_out_everywhere";

  async function oidc() {
    "use server";
    const { signIn: go, OIDC_PROVIDER_ID } = await import("@/lib/auth/next-auth");
    await go(OIDC_PROVIDER_ID, { redirectTo: returnTo });
  }

  async function dev(form: FormData) {
    "use server";
    try {
      await signIn(DEV_PROVIDER_ID, { email: form.get("email"), password: form.get("password"), redirectTo: returnTo });
    } catch (err) {
      if (err instanceof AuthError) redirect(`/signin?error=${encodeURIComponent(err.type)}&callbackUrl=${encodeURIComponent(returnTo)}`);
      throw err;
    }
  }

  return (
    <div className="mx-auto max-w-md">
      <h1 className="mb-6 text-2xl font-semibold tracking-tight">Sign in to Realmgate</h1>
      <div className="space-y-4">
        {error ? <Alert tone="error" title="Could not sign you in">{error}</Alert> : null}
        {signedOutEverywhere ? (
          <Alert tone="success" title="Signed out of all devices">
            Every session of yours has ended, on every browser. Sign in again here.
          </Alert>
        ) : null}
        {methods.oidc ? (
          <Card>
            <form action={oidc}>
              <Button type="submit" className="w-full">
                Continue with {methods.oidc.name}
              </Button>
            </form>
          </Card>
        ) : null}
        {methods.dev ? (
          <Card>
            <h2 className="font-semibold">Development sign-in</h2>
            <p className="mt-1 text-sm text-slate-600">
              Enabled by <code>REALMGATE_DEV_LOGIN</code>. Demo accounts and passwords are in <code>.data/demo.json</code>.
            </p>
            <form action={dev} className="mt-4 space-y-3">
              <div>
                <label htmlFor="email" className="block text-sm font-medium">Email</label>
                <input id="email" name="email" type="email" required autoComplete="username" className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2" />
              </div>
              <div>
                <label htmlFor="password" className="block text-sm font-medium">Password</label>
                <input id="password" name="password" type="password" required autoComplete="current-password" className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2" />
              </div>
              <Button type="submit" variant="secondary" className="w-full">Sign in</Button>
            </form>
          </Card>
        ) : null}
        {!methods.oidc && !methods.dev ? (
          <Alert tone="warning" title="No sign-in method is configured">
            Set <code>AUTH_OIDC_ISSUER</code>, <code>AUTH_OIDC_CLIENT_ID</code> and <code>AUTH_OIDC_CLIENT_SECRET</code>, or run <code>npm run dev</code> for the development sign-in.
          </Alert>
        ) : null}
      </div>
    </div>
  );
}
