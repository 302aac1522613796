"use client";
// The person's own API keys: create one (shown once, with a copy button), see them with their dates, revoke one
// after a confirmation. A revoke is said in a live notice that takes the keyboard, since its button is gone.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { CopyButton } from "@/components/agents/mcp-setup";
import { api } from "@/components/api-client";
import { Alert, LiveNotice, type Notice } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Time } from "@/components/ui/time";
import { RevokeKeyDialog } from "./revoke-key-dialog";

type ApiKey = { id: string; name: string; display_prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };
const keysKey = ["api-keys"] as const;

export function ApiKeysManager() {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  /** Where the keyboard lands once the dialog is gone after a revoke (cancelled, the dialog gives it back itself). */
  const focusAfter = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (revoking || !focusAfter.current) return;
    focusAfter.current.focus();
    focusAfter.current = null;
  }, [revoking]);

  const keys = useQuery({ queryKey: keysKey, queryFn: () => api<{ api_keys: ApiKey[] }>("/api/v1/api-keys") });
  const create = useMutation({
    mutationFn: (n: string) => api<ApiKey & { key: string }>("/api/v1/api-keys", { method: "POST", body: { name: n } }),
    onSuccess: (k) => {
      setCreated(k);
      setNotice(null);
      setName("");
      void qc.invalidateQueries({ queryKey: keysKey });
    },
  });
  const revoke = useMutation({
    mutationFn: (k: ApiKey) => api<ApiKey>(`/api/v1/api-keys/${encodeURIComponent(k.id)}`, { method: "DELETE" }),
    onSuccess: async (_r, k) => {
      // Its Revoke button is gone with it: the keyboard lands on the notice.
      focusAfter.current = noticeRef.current;
      setRevoking(null);
      // A revoked key is of no use to copy any more.
      setCreated((c) => (c?.id === k.id ? null : c));
      setNotice({ tone: "success", title: `Key “${k.name}” revoked`, text: `Anything that uses ${k.display_prefix}… is refused from now on.` });
      await qc.invalidateQueries({ queryKey: keysKey });
    },
  });

  const list = keys.data?.api_keys ?? [];
  // The key just created, unless it has been revoked since (here, or elsewhere and seen on the last refresh).
  const fresh = created && !list.some((k) => k.id === created.id && k.revoked_at) ? created : null;

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
        {fresh ? (
          <div className="mt-4">
            <Alert tone="success" title={`Key “${fresh.name}” created — copy it now, it will not be shown again`}>
              <code className="block break-all rounded bg-white/70 p-2 font-mono text-xs" aria-label="New API key">{fresh.key}</code>
              <div className="mt-2">
                <CopyButton text={fresh.key} label={`Copy the key “${fresh.name}”`} />
              </div>
            </Alert>
          </div>
        ) : null}
      </Card>

      <Card>
        <h2 className="font-semibold">Your keys</h2>
        <div className={notice ? "mt-3" : ""}>
          <LiveNotice ref={noticeRef} notice={notice} />
        </div>
        {keys.isPending ? <p className="mt-3 text-sm text-slate-600" role="status">Loading keys…</p> : null}
        {keys.isError ? <div className="mt-3"><Alert tone="error" title="Could not load your keys">{keys.error.message}</Alert></div> : null}
        {keys.data && list.length === 0 ? <p className="mt-3 text-sm text-slate-600">You have no API keys yet.</p> : null}
        {list.length > 0 ? (
          <ul className="mt-3 divide-y divide-slate-200" aria-label="Your API keys">
            {list.map((k) => (
              <li key={k.id} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
                <div className="min-w-0">
                  <p className="font-medium break-words">{k.name} <span className="font-mono text-xs text-slate-600">{k.display_prefix}…</span></p>
                  <p className="text-xs text-slate-600">
                    Created <Time iso={k.created_at} /> ·{" "}
                    {k.last_used_at ? (
                      <>
                        last used <Time iso={k.last_used_at} />
                      </>
                    ) : (
                      "never used"
                    )}
                    {k.revoked_at ? (
                      <>
                        {" "}
                        · revoked <Time iso={k.revoked_at} />
                      </>
                    ) : null}
                  </p>
                </div>
                {k.revoked_at ? (
                  <span className="text-sm text-slate-600">Revoked</span>
                ) : (
                  <Button
                    variant="danger"
                    onClick={() => {
                      revoke.reset();
                      setRevoking(k);
                    }}
                    aria-label={`Revoke key ${k.name}`}
                  >
                    Revoke
                  </Button>
                )}
              </li>
            ))}
          </ul>
        ) : null}
      </Card>

      {revoking ? (
        <RevokeKeyDialog
          apiKey={revoking}
          pending={revoke.isPending}
          error={revoke.isError ? revoke.error.message : null}
          onConfirm={() => revoke.mutate(revoking)}
          onCancel={() => setRevoking(null)}
        />
      ) : null}
    </div>
  );
}
