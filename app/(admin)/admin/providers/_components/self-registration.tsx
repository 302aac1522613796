"use client";
// Let a provider register itself: mint a one-time registration token (valid one hour, one use; only its hash is
// kept), shown once with the exact call the provider makes with it.
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Time } from "@/components/ui/time";
import { CopyField } from "./copy-field";
import type { MintedToken } from "./types";

export function SelfRegistration() {
  const shown = useRef<HTMLDivElement>(null);
  const mint = useMutation({ mutationFn: () => api<MintedToken>("/api/v1/remote-providers/tokens", { method: "POST" }) });
  useEffect(() => {
    if (mint.data || mint.isError) shown.current?.focus();
  }, [mint.data, mint.isError]);

  const t = mint.data;
  // This app's origin as the browser reached it (the provider calls the same place); a token exists only in the browser.
  const origin = t ? window.location.origin : "";
  const registerUrl = t ? `${origin}${t.register_url}` : "";
  return (
    <Card>
      <h2 className="font-semibold">Let a provider register itself</h2>
      <p className="mt-1 text-sm text-slate-600">
        For a provider you deploy with its settings: mint a one-time token and give it to the provider, which registers itself with its own URL. The token works once, for one hour.
      </p>
      <Button type="button" variant="secondary" className="mt-3" disabled={mint.isPending} onClick={() => mint.mutate()}>
        {mint.isPending ? "Minting…" : t ? "Mint another token" : "Mint a registration token"}
      </Button>
      <div ref={shown} tabIndex={-1} className="mt-4 rounded-md">
        {mint.isError ? (
          <Alert tone="error" title="No token was minted">
            {mint.error.message}
          </Alert>
        ) : null}
        {t ? (
          <div className="space-y-3 rounded-md border border-amber-400 bg-amber-50 p-3 text-amber-950">
            <p className="text-sm font-semibold">The token is shown once — give it to the provider now.</p>
            <p className="text-sm">
              It expires <Time iso={t.expires_at} mode="both" /> and is used up by the first registration.
            </p>
            <CopyField label="Registration token" value={t.token} />
            <div className="text-sm">
              <p className="font-medium">What the provider does with it</p>
              <p className="mt-1">
                It sends <code className="break-all">POST {registerUrl}</code> with the header <code className="break-all">Authorization: Bearer &lt;token&gt;</code> and the body{" "}
                <code>{`{"url": "<its base URL>"}`}</code>. The answer carries its signing secret and registration id, once.
              </p>
              <p className="mt-2">The example provider reads these two settings and does it on start:</p>
              <pre className="mt-1 whitespace-pre-wrap break-all rounded-md bg-white p-2 font-mono text-xs text-slate-900">
                {`REALMGATE_URL=${origin}\nREALMGATE_REGISTRATION_TOKEN=${t.token}`}
              </pre>
            </div>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
