"use client";
// Grant one of your agents access from the Agents page: a realm, its operations (the grouped picker), the
// scope (everything, or one object found by name) and an expiry; POST /api/v1/grants. Says pending, saved or
// failed (with retry).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api } from "@/components/api-client";
import { GroupedPicker } from "@/components/operations/grouped-picker";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select } from "@/components/ui/input";
import type { GrantView } from "@/lib/authz/grants";
import type { PickerRealm } from "@/lib/views/agents";

type Found = { ref: string; label: string; kind: string; summary?: string };

const message = (e: unknown) => (e instanceof Error ? e.message : "Something went wrong.");

/** The expiry choices a grant is given with (the API's expiry values). */
export function ExpiryOptions() {
  return (
    <>
      <option value="1h">1 hour</option>
      <option value="1d">1 day</option>
      <option value="30d">30 days</option>
      <option value="never">Until I revoke it</option>
    </>
  );
}

export function GrantForm({ actor, realms, onDone }: { actor: { id: string; name: string }; realms: PickerRealm[]; onDone?: () => void }) {
  const id = useId();
  const qc = useQueryClient();
  const [namespace, setNamespace] = useState(realms.find((r) => r.namespace === "docs")?.namespace ?? realms[0]?.namespace ?? "");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [scope, setScope] = useState<"all" | "one">("all");
  const [query, setQuery] = useState("");
  const [object, setObject] = useState<Found | null>(null);
  const [expires, setExpires] = useState<"1h" | "1d" | "30d" | "never">("30d");
  const realm = realms.find((r) => r.namespace === namespace);
  const operations = [...selected].filter((v) => v.startsWith(`${namespace} `)).map((v) => v.slice(namespace.length + 1));

  const search = useMutation({
    mutationFn: () => api<{ items: Found[] }>("/api/v1/tools/search_objects", { method: "POST", body: { namespace, query: query.trim(), limit: 10 } }),
  });
  const save = useMutation({
    mutationFn: () =>
      api<GrantView>("/api/v1/grants", {
        method: "POST",
        body: { actor_id: actor.id, namespace, operations, resource_scope: scope === "one" && object ? { refs: [object.ref] } : null, expires },
      }),
    onSuccess: () => {
      setSelected(new Set());
      void qc.invalidateQueries({ queryKey: ["grants"] });
    },
  });
  const canSave = operations.length > 0 && (scope === "all" || object !== null) && !save.isPending;

  if (realms.length === 0) return <Alert tone="warning" title="Nothing to grant">Your workspace or your own choices allow agents no operations.</Alert>;
  return (
    <form
      aria-labelledby={`${id}-h`}
      className="flex flex-col gap-4 rounded-md border border-slate-200 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (canSave) save.mutate();
      }}
    >
      <h4 id={`${id}-h`} className="font-medium">
        Grant {actor.name} access
      </h4>
      <Field id={`${id}-realm`} label="Realm">
        <Select
          id={`${id}-realm`}
          value={namespace}
          onChange={(e) => {
            setNamespace(e.target.value);
            setSelected(new Set());
            setObject(null);
            search.reset();
            save.reset();
          }}
        >
          {realms.map((r) => (
            <option key={r.namespace} value={r.namespace}>
              {r.title}
            </option>
          ))}
        </Select>
      </Field>
      {realm ? <GroupedPicker key={realm.namespace} realms={[realm]} selected={selected} onChange={setSelected} label={`Operations of ${realm.title} for ${actor.name}`} /> : null}
      <fieldset>
        <legend className="text-sm font-medium">Where</legend>
        <div className="mt-1 flex flex-col gap-2 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name={`${id}-scope`} checked={scope === "all"} onChange={() => setScope("all")} className="h-4 w-4" />
            Everything I can reach in {realm?.title ?? "this realm"}
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name={`${id}-scope`} checked={scope === "one"} onChange={() => setScope("one")} className="h-4 w-4" />
            Only one object (and what it contains)
          </label>
        </div>
        {scope === "one" ? (
          <div className="mt-2 flex flex-col gap-2 pl-6">
            <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
              <Field id={`${id}-q`} label="Find it by name" className="flex-1">
                <Input
                  id={`${id}-q`}
                  value={query}
                  onChange={(e) => setQuery(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") {
                      e.preventDefault();
                      if (query.trim()) search.mutate();
                    }
                  }}
                />
              </Field>
              <Button type="button" variant="secondary" disabled={!query.trim() || search.isPending} onClick={() => search.mutate()}>
                {search.isPending ? "Searching…" : "Search"}
              </Button>
            </div>
            {search.isError ? (
              <Alert tone="error" title="Search failed">
                {message(search.error)}{" "}
                <Button type="button" variant="ghost" onClick={() => search.mutate()}>
                  Retry
                </Button>
              </Alert>
            ) : null}
            {search.data ? (
              search.data.items.length === 0 ? (
                <p className="text-sm text-slate-600">Nothing found by that name.</p>
              ) : (
                <fieldset>
                  <legend className="text-sm">Choose one</legend>
                  <ul className="mt-1 flex flex-col gap-1 text-sm">
                    {search.data.items.map((it) => (
                      <li key={it.ref}>
                        <label className="flex items-center gap-2">
                          <input type="radio" name={`${id}-object`} checked={object?.ref === it.ref} onChange={() => setObject(it)} className="h-4 w-4" />
                          {it.label}
                          {it.summary ? <span className="text-xs text-slate-600">{it.summary.slice(0, 80)}</span> : null}
                        </label>
                      </li>
                    ))}
                  </ul>
                </fieldset>
              )
            ) : null}
          </div>
        ) : null}
      </fieldset>
      <Field id={`${id}-exp`} label="Access ends after" className="sm:w-56">
        <Select id={`${id}-exp`} value={expires} onChange={(e) => setExpires(e.target.value as typeof expires)}>
          <ExpiryOptions />
        </Select>
      </Field>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={!canSave}>
          {save.isPending ? "Granting…" : `Grant ${operations.length} operation${operations.length === 1 ? "" : "s"}`}
        </Button>
        {onDone ? (
          <Button type="button" variant="ghost" onClick={onDone}>
            Close
          </Button>
        ) : null}
        <span role="status" className="text-sm text-slate-700">
          {save.isPending ? "Saving the grant…" : save.isSuccess ? `Saved: ${actor.name} can now use ${save.data.operations.length} operation${save.data.operations.length === 1 ? "" : "s"} in ${realms.find((r) => r.namespace === save.data.namespace)?.title ?? save.data.namespace}.` : ""}
        </span>
      </div>
      {save.isError ? (
        <Alert tone="error" title="Not granted">
          {message(save.error)}{" "}
          <Button type="button" variant="secondary" onClick={() => save.mutate()}>
            Retry
          </Button>
        </Alert>
      ) : null}
    </form>
  );
}
