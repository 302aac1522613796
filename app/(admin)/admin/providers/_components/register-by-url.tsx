"use client";
// Register a provider by its URL: Realmgate fetches and checks its manifest first (nothing is registered when it
// fails, and every problem is listed), then shows the registration's signing secret once — the provider needs it,
// with the registration id and tenant id, to verify Realmgate's signed calls.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { CopyField } from "./copy-field";
import { problemsOf, providersKey, type Registered } from "./types";

export function RegisterByUrl() {
  const qc = useQueryClient();
  const [url, setUrl] = useState("");
  const outcome = useRef<HTMLDivElement>(null);
  const register = useMutation({
    mutationFn: (u: string) => api<Registered>("/api/v1/remote-providers", { method: "POST", body: { url: u } }),
    onSuccess: () => {
      setUrl("");
      void qc.invalidateQueries({ queryKey: providersKey });
    },
  });
  // The outcome takes focus once it is in the page, so keyboard and screen-reader users land on the secret or the problems.
  useEffect(() => {
    if (register.isSuccess || register.isError) outcome.current?.focus();
  }, [register.isSuccess, register.isError, register.data, register.error]);

  const result = register.data;
  const problems = problemsOf(register.error);
  return (
    <Card>
      <h2 className="font-semibold">Register by URL</h2>
      <p className="mt-1 text-sm text-slate-600">
        Give the provider&apos;s base URL. Realmgate reads <code>&lt;URL&gt;/manifest</code>, checks it against the provider protocol, and registers it only if it passes.
      </p>
      <form
        className="mt-3 space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (url.trim()) register.mutate(url.trim());
        }}
      >
        <Field id="provider-url" label="Provider URL" hint="HTTPS, e.g. https://tickets.internal.example/ — no query or fragment.">
          <Input id="provider-url" type="url" inputMode="url" value={url} onChange={(e) => setUrl(e.target.value)} required aria-describedby="provider-url-hint" placeholder="https://tickets.internal.example/" autoComplete="off" spellCheck={false} />
        </Field>
        <Button type="submit" disabled={!url.trim() || register.isPending}>
          {register.isPending ? "Checking the manifest…" : "Register provider"}
        </Button>
      </form>

      <div ref={outcome} tabIndex={-1} className="mt-4 rounded-md">
        {register.isError ? (
          <Alert tone="error" title="Nothing was registered">
            <p>{register.error.message}</p>
            {problems.length ? (
              <>
                <p className="mt-2 font-medium">What the manifest must fix ({problems.length}):</p>
                <ul className="mt-1 list-disc space-y-1 pl-5 break-words">
                  {problems.map((p, i) => (
                    <li key={i}>{p}</li>
                  ))}
                </ul>
              </>
            ) : null}
          </Alert>
        ) : null}
        {result ? (
          <div className="space-y-3">
            <Alert tone="success" title={`Registered ${result.provider.title} as “${result.provider.namespace}”`}>
              Agents can be granted it from its realm page. Configure the provider with the values below before it gets its first call.
            </Alert>
            <div className="space-y-3 rounded-md border border-amber-400 bg-amber-50 p-3 text-amber-950">
              <p className="text-sm font-semibold">The signing secret is shown once — copy it now.</p>
              <p className="text-sm">
                Configure it in the provider as its registration secret; Realmgate keeps it sealed and cannot show it again. If it is lost, remove the provider and register it again.
              </p>
              <CopyField label="Signing secret" value={result.secret} />
              <CopyField label="Registration id" value={result.provider.id} hint="The provider checks the Realmgate-Registration header against it." />
              <CopyField label="Tenant id" value={result.tenant_id} hint="The provider checks every call's context names this tenant." />
            </div>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
