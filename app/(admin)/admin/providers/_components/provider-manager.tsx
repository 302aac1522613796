"use client";
// The owner's remote providers: the registered list (check, remove with a confirmation), then the two ways to
// register one — by URL, or by the provider itself with a one-time token.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api } from "@/components/api-client";
import { Alert, LiveNotice, type Notice } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Spinner } from "@/components/ui/spinner";
import { ProviderItem } from "./provider-item";
import { RegisterByUrl } from "./register-by-url";
import { RemoveDialog } from "./remove-dialog";
import { SelfRegistration } from "./self-registration";
import { providersKey, type ProviderView } from "./types";

export function ProviderManager() {
  const qc = useQueryClient();
  const providers = useQuery({ queryKey: providersKey, queryFn: () => api<{ providers: ProviderView[] }>("/api/v1/remote-providers") });
  const [removing, setRemoving] = useState<ProviderView | null>(null);
  const noticeRef = useRef<HTMLDivElement>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  /** Where the keyboard lands once the dialog is gone after a removal (cancelled, the dialog gives it back itself). */
  const focusAfter = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (removing || !focusAfter.current) return;
    focusAfter.current.focus();
    focusAfter.current = null;
  }, [removing]);

  const remove = useMutation({
    mutationFn: (p: ProviderView) => api<{ removed: true; namespace: string }>(`/api/v1/remote-providers/${encodeURIComponent(p.id)}`, { method: "DELETE" }),
    onSuccess: async (_r, p) => {
      // Its Remove button is gone with it: the keyboard lands on the notice.
      focusAfter.current = noticeRef.current;
      setRemoving(null);
      setNotice({ tone: "success", title: `Removed ${p.title}`, text: `The realm “${p.namespace}” is gone: agents lost it, and grants to it cover nothing now.` });
      await qc.invalidateQueries({ queryKey: providersKey });
      void qc.invalidateQueries({ queryKey: ["realms"] });
    },
  });

  const list = providers.data?.providers ?? [];
  return (
    <div className="space-y-6">
      <Card>
        <h2 className="font-semibold">Registered providers</h2>
        <div className="mt-3">
          <LiveNotice ref={noticeRef} notice={notice} />
        </div>
        {providers.isPending ? <Spinner label="Loading the registered providers…" /> : null}
        {providers.isError ? (
          <div className="mt-3">
            <Alert tone="error" title="Could not load the registered providers">
              {providers.error.message}
            </Alert>
          </div>
        ) : null}
        {providers.data && list.length === 0 ? (
          <div className="mt-3">
            <EmptyState title="No provider registered yet">Register one by its URL below, or let a provider register itself with a one-time token. Each provider appears as a realm.</EmptyState>
          </div>
        ) : null}
        {list.length ? (
          <ul className="mt-3 space-y-3" aria-label="Registered providers">
            {list.map((p) => (
              <ProviderItem
                key={p.id}
                provider={p}
                onRemove={(target) => {
                  remove.reset();
                  setRemoving(target);
                }}
              />
            ))}
          </ul>
        ) : null}
      </Card>

      {removing ? (
        <RemoveDialog
          provider={removing}
          pending={remove.isPending}
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => setRemoving(null)}
        />
      ) : null}
      {remove.isError ? (
        <Alert tone="error" title="The provider was not removed">
          {remove.error.message}
        </Alert>
      ) : null}

      <RegisterByUrl />
      <SelfRegistration />
    </div>
  );
}
