"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

type ApiKey = { id: string; name: string; display_prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };

export function ApiKeysManager() {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const keys = useQuery({ queryKey: ["api-keys"], queryFn: () => api<{ api_keys: ApiKey[] }>("/api/v1/api-keys") });
  const create = useMutation({
    mutationFn: (n: string) => api<ApiKey & { key: string }>("/api/v1/api-keys", { method: "POST", body: { name: n } }),
    onSuccess: (k) => {
      setCreated(k);
      setName("");
      void qc.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api<ApiKey>(`/api/v1/api-keys/${id}`, { method: "DELETE" }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["api-keys"] }),
  });

  return (
    <div className="space-y-6">
      <Card>
        <h2 className="font-semibold">Create a key</h2>
        <form
          className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) create.mutate(name.trim());
          }}
        >
          <div className="flex-1">
            <label htmlFor="key-name" className="block text-sm font-medium">Key name</label>
            <input id="key-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} required placeholder="e.g. laptop script" className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2" />
          </div>
          <Button type="submit" disabled={create.isPending}>{create.isPending ? "Creating…" : "Create key"}</Button>
        </form>
        {create.isError ? <div className="mt-3"><Alert tone="error" title="Could not create the key">{create.error.message}</Alert></div> : null}
        {created ? (
          <div className="mt-4">
            <Alert tone="success" title={`Key “${created.name}” created — copy it now, it will not be shown again`}>
              <code className="block break-all rounded bg-white/70 p-2 font-mono text-xs" aria-label="New API key">{created.key}</code>
            </Alert>
          </div>
        ) : null}
      </Card>

      <Card>
        <h2 className="font-semibold">Your keys</h2>
        {keys.isPending ? <p className="mt-3 text-sm text-slate-600" role="status">Loading keys…</p> : null}
        {keys.isError ? <div className="mt-3"><Alert tone="error" title="Could not load your keys">{keys.error.message}</Alert></div> : null}
        {keys.data && keys.data.api_keys.length === 0 ? <p className="mt-3 text-sm text-slate-600">You have no API keys yet.</p> : null}
        {keys.data && keys.data.api_keys.length > 0 ? (
          <ul className="mt-3 divide-y divide-slate-200">
            {keys.data.api_keys.map((k) => (
              <li key={k.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
                <div>
                  <p className="font-medium">{k.name} <span className="font-mono text-xs text-slate-600">{k.display_prefix}…</span></p>
                  <p className="text-xs text-slate-600">
                    Created {new Date(k.created_at).toLocaleString()} · {k.last_used_at ? `last used ${new Date(k.last_used_at).toLocaleString()}` : "never used"}
                    {k.revoked_at ? ` · revoked ${new Date(k.revoked_at).toLocaleString()}` : ""}
                  </p>
                </div>
                {k.revoked_at ? (
                  <span className="text-sm text-slate-600">Revoked</span>
                ) : (
                  <Button variant="danger" onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending} aria-label={`Revoke key ${k.name}`}>
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        ) : null}
        {revoke.isError ? <div className="mt-3"><Alert tone="error" title="Could not revoke the key">{revoke.error.message}</Alert></div> : null}
      </Card>
    </div>
  );
}
