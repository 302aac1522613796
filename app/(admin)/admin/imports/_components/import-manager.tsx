"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { api, ApiError } from "@/components/api-client";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

type Source = "upload" | "paste" | "url";
type CredentialType = "none" | "bearer" | "header" | "query" | "basic";
type Diff = { added: { count: number; operations: string[] }; removed: { count: number; operations: string[] }; changed: { count: number; operations: { action: string; changes: string[] }[] }; unchanged: number };
/** One operation of one grant whose meaning an import changes (endpoint moved, or risk raised). */
type AffectedGrant = { grant_id: string; actor_id: string; actor_name: string; grantor_id: string; operation: string; change: string };
type ImportResult = {
  namespace: string;
  title: string;
  /** The realm's purpose, as its service card will say it. */
  description: string;
  base_url: string;
  applied: boolean;
  dry_run: boolean;
  exists: boolean;
  version: number | null;
  operations: { total: number; read: number; write: number; destructive: number };
  diff: Diff;
  warnings: { path: string; message: string }[];
  warning_count: number;
  /** Dry run: what applying would suspend. */
  affected_grants?: AffectedGrant[];
  affected_grant_count?: number;
  /** Applied: what was suspended. */
  suspended_grants?: AffectedGrant[];
  suspended_grant_count?: number;
};
type Imported = { namespace: string; title: string; base_url: string; operations: number; version: number; source: string; credential: { type: string; configured: boolean }; updated_at: string };

const input = "mt-1 w-full rounded-md border border-slate-300 px-3 py-2";

function issuesOf(err: unknown): { path: string; message: string }[] {
  const issues = err instanceof ApiError ? err.details.issues : undefined;
  return Array.isArray(issues) ? (issues as { path: string; message: string }[]).slice(0, 20) : [];
}

function DiffView({ r }: { r: ImportResult }) {
  const list = (items: string[], more: number) => (
    <>
      {items.slice(0, 15).join(", ")}
      {more > 15 ? ` and ${more - 15} more` : ""}
    </>
  );
  return (
    <dl className="mt-2 grid gap-1 text-sm">
      <div>
        <dt className="inline font-medium">Operations: </dt>
        <dd className="inline">
          {r.operations.total} ({r.operations.read} read, {r.operations.write} write, {r.operations.destructive} destructive)
        </dd>
      </div>
      <div>
        <dt className="inline font-medium">Added ({r.diff.added.count}): </dt>
        <dd className="inline break-words">{r.diff.added.count ? list(r.diff.added.operations, r.diff.added.count) : "none"}</dd>
      </div>
      <div>
        <dt className="inline font-medium">Removed ({r.diff.removed.count}): </dt>
        <dd className="inline break-words">{r.diff.removed.count ? list(r.diff.removed.operations, r.diff.removed.count) : "none"}</dd>
      </div>
      <div>
        <dt className="inline font-medium">Changed ({r.diff.changed.count}): </dt>
        <dd className="inline break-words">
          {r.diff.changed.count ? r.diff.changed.operations.slice(0, 15).map((c) => `${c.action} (${c.changes.join("; ")})`).join(", ") : "none"}
        </dd>
      </div>
      <div>
        <dt className="inline font-medium">Unchanged: </dt>
        <dd className="inline">{r.diff.unchanged}</dd>
      </div>
      {r.warning_count ? (
        <div>
          <dt className="inline font-medium">Warnings ({r.warning_count}): </dt>
          <dd className="inline break-words">{r.warnings.slice(0, 5).map((w) => `${w.path}: ${w.message}`).join(" · ")}</dd>
        </div>
      ) : null}
    </dl>
  );
}

const operationName = (key: string) => (key.startsWith("object.action.") ? key.slice(14) : key);

/** The grants whose operations change meaning: suspended until their grantor approves again. Text, not colour, says so. */
function SuspendedGrants({ r }: { r: ImportResult }) {
  const list = (r.applied ? r.suspended_grants : r.affected_grants) ?? [];
  const count = (r.applied ? r.suspended_grant_count : r.affected_grant_count) ?? 0;
  if (!count) return null;
  const shown = list.slice(0, 20);
  const headingId = `suspended-${r.applied ? "applied" : "preview"}`;
  const grantsWord = count === 1 ? "grant" : "grants";
  return (
    <section aria-labelledby={headingId} className="mt-3 rounded-md border border-amber-400 bg-amber-50 px-3 py-2 text-amber-950">
      <h3 id={headingId} className="font-medium">
        {r.applied ? `Warning: ${count} ${grantsWord} suspended until re-approved` : `Warning: ${count} ${grantsWord} will be suspended until re-approved`}
      </h3>
      <p className="text-xs">
        These operations now do something other than what was approved, so the agents holding them are asked for consent again. The rest of each grant keeps working.
      </p>
      <ul className="mt-1 list-disc pl-5">
        {shown.map((a) => (
          <li key={`${a.grant_id}|${a.operation}`} className="break-words">
            {a.actor_name} — <code>{operationName(a.operation)}</code> ({a.change})
          </li>
        ))}
      </ul>
      {list.length > shown.length ? <p className="text-xs">and {list.length - shown.length} more</p> : null}
    </section>
  );
}

/**
 * Companion files by their path relative to the document: files picked one by one by their name (they sit
 * beside it); a folder's by their path inside the folder (the document at its top). YAML and JSON files only.
 */
async function readCompanions(list: FileList | null): Promise<Record<string, string>> {
  const picked = [...(list ?? [])].filter((f) => /\.(ya?ml|json)$/i.test(f.name));
  const entries = await Promise.all(picked.map(async (f) => [f.webkitRelativePath ? f.webkitRelativePath.split("/").slice(1).join("/") : f.name, await f.text()] as const));
  return Object.fromEntries(entries);
}

export function ImportManager() {
  const qc = useQueryClient();
  const [namespace, setNamespace] = useState("");
  const [source, setSource] = useState<Source>("upload");
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState("");
  const [specUrl, setSpecUrl] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [credType, setCredType] = useState<CredentialType>("none");
  const [credName, setCredName] = useState("");
  const [credValue, setCredValue] = useState("");
  const [credUser, setCredUser] = useState("");
  const [title, setTitle] = useState("");
  const [purpose, setPurpose] = useState("");
  /** Companion files the document's relative $refs name: path relative to the document → text. */
  const [companions, setCompanions] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<ImportResult | null>(null);

  const imported = useQuery({ queryKey: ["imports"], queryFn: () => api<{ realms: Imported[] }>("/api/v1/realms/import") });

  const body = (dryRun: boolean) => {
    const credential =
      credType === "none"
        ? undefined
        : credType === "bearer"
          ? { type: "bearer", token: credValue }
          : credType === "basic"
            ? { type: "basic", username: credUser, password: credValue }
            : { type: credType, name: credName, value: credValue };
    return {
      namespace: namespace.trim(),
      ...(source === "url" ? { spec_url: specUrl.trim() } : { spec: text, ...(Object.keys(companions).length ? { spec_files: companions } : {}) }),
      source,
      ...(title.trim() ? { title: title.trim() } : {}),
      ...(purpose.trim() ? { description: purpose.trim() } : {}),
      ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
      ...(credential && !dryRun ? { credential } : {}),
      dry_run: dryRun,
    };
  };
  const run = useMutation({
    mutationFn: (dryRun: boolean) => api<ImportResult>("/api/v1/realms/import", { method: "POST", body: body(dryRun) }),
    onSuccess: (r) => {
      setPreview(r);
      if (r.applied) void qc.invalidateQueries({ queryKey: ["imports"] });
    },
  });

  const ready = namespace.trim() && (source === "url" ? specUrl.trim() : text.trim());
  return (
    <div className="space-y-6">
      <Card>
        <h2 className="font-semibold">Import a service</h2>
        <form
          className="mt-3 space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (ready) run.mutate(true);
          }}
        >
          <div>
            <label htmlFor="ns" className="block text-sm font-medium">Namespace</label>
            <input id="ns" className={input} value={namespace} onChange={(e) => setNamespace(e.target.value)} required pattern="[a-z][a-z0-9_]{1,30}" aria-describedby="ns-help" placeholder="e.g. helpdesk" />
            <p id="ns-help" className="mt-1 text-xs text-slate-600">Lower-case letters, digits and _; agents use it to name the service.</p>
          </div>

          <fieldset>
            <legend className="text-sm font-medium">Where the OpenAPI document comes from</legend>
            <div className="mt-1 flex flex-wrap gap-4 text-sm">
              {(
                [
                  ["upload", "Upload a file"],
                  ["paste", "Paste JSON or YAML"],
                  ["url", "Fetch from a URL"],
                ] as const
              ).map(([value, label]) => (
                <label key={value} className="inline-flex items-center gap-2">
                  <input type="radio" name="source" value={value} checked={source === value} onChange={() => setSource(value)} />
                  {label}
                </label>
              ))}
            </div>
          </fieldset>

          {source === "upload" ? (
            <div>
              <label htmlFor="spec-file" className="block text-sm font-medium">OpenAPI document file (JSON or YAML, up to 50 MB)</label>
              <input
                id="spec-file"
                type="file"
                accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
                className="mt-1 block text-sm"
                onChange={async (e) => {
                  const f = e.target.files?.[0];
                  setFileName(f?.name ?? "");
                  setText(f ? await f.text() : "");
                }}
              />
              {fileName ? <p className="mt-1 text-xs text-slate-600">{fileName}: {Math.ceil(text.length / 1024)} KB read</p> : null}
            </div>
          ) : source === "paste" ? (
            <div>
              <label htmlFor="spec-text" className="block text-sm font-medium">OpenAPI document</label>
              <textarea id="spec-text" className={`${input} h-48 font-mono text-xs`} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
            </div>
          ) : (
            <div>
              <label htmlFor="spec-url" className="block text-sm font-medium">Document URL</label>
              <input id="spec-url" type="url" className={input} value={specUrl} onChange={(e) => setSpecUrl(e.target.value)} placeholder="https://example.com/openapi.json" />
            </div>
          )}

          {source !== "url" ? (
            <div>
              <label htmlFor="spec-companions" className="block text-sm font-medium">Files the document refers to (optional)</label>
              <input
                id="spec-companions"
                type="file"
                multiple
                accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
                className="mt-1 block text-sm"
                aria-describedby="companions-help"
                onChange={async (e) => setCompanions(await readCompanions(e.target.files))}
              />
              <label htmlFor="spec-folder" className="mt-2 block text-sm">or the document&apos;s whole folder</label>
              <input
                id="spec-folder"
                type="file"
                multiple
                className="mt-1 block text-sm"
                aria-describedby="companions-help"
                {...{ webkitdirectory: "" }}
                onChange={async (e) => setCompanions(await readCompanions(e.target.files))}
              />
              <p id="companions-help" className="mt-1 text-xs text-slate-600">
                When the document&apos;s <code>$ref</code>s name other files (<code>./schemas/pet.yaml</code>), add them here; each is matched by its path relative to the document.
                {Object.keys(companions).length ? ` ${Object.keys(companions).length} file(s): ${Object.keys(companions).slice(0, 5).join(", ")}` : ""}
              </p>
            </div>
          ) : (
            <p className="text-xs text-slate-600">Files the document&apos;s <code>$ref</code>s name beside its URL (same origin) are fetched with it.</p>
          )}

          <div>
            <label htmlFor="realm-title" className="block text-sm font-medium">Name (optional)</label>
            <input id="realm-title" className={input} value={title} onChange={(e) => setTitle(e.target.value)} maxLength={80} aria-describedby="title-help" placeholder={preview?.title ? `From the document: ${preview.title}` : "Taken from the document's title when left empty"} />
            <p id="title-help" className="mt-1 text-xs text-slate-600">What people and agents call the service, e.g. “TMDB”. Up to 80 characters; a re-import without it keeps the current name.</p>
          </div>

          <div>
            <label htmlFor="realm-purpose" className="block text-sm font-medium">Purpose (optional)</label>
            <input id="realm-purpose" className={input} value={purpose} onChange={(e) => setPurpose(e.target.value)} maxLength={300} aria-describedby="purpose-help" placeholder={preview?.description ? `From the document: ${preview.description}` : "The first sentence of the document's description when left empty"} />
            <p id="purpose-help" className="mt-1 text-xs text-slate-600">One sentence saying what the service is for; agents read it first. Up to 300 characters.</p>
          </div>

          <div>
            <label htmlFor="base-url" className="block text-sm font-medium">Service base URL (optional)</label>
            <input id="base-url" type="url" className={input} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} aria-describedby="base-help" placeholder="Taken from the document's servers when left empty" />
            <p id="base-help" className="mt-1 text-xs text-slate-600">Every call goes to this URL; agents never choose it.</p>
          </div>

          <fieldset className="space-y-2">
            <legend className="text-sm font-medium">Credential Realmgate sends (stored encrypted)</legend>
            <label htmlFor="cred-type" className="block text-sm">Kind</label>
            <select id="cred-type" className={input} value={credType} onChange={(e) => setCredType(e.target.value as CredentialType)}>
              <option value="none">None (or keep the current one)</option>
              <option value="bearer">Bearer token</option>
              <option value="header">API key in a header</option>
              <option value="query">API key in the query string</option>
              <option value="basic">User name and password (Basic)</option>
            </select>
            {credType === "header" || credType === "query" ? (
              <div>
                <label htmlFor="cred-name" className="block text-sm">{credType === "header" ? "Header name" : "Query parameter name"}</label>
                <input id="cred-name" className={input} value={credName} onChange={(e) => setCredName(e.target.value)} placeholder={credType === "header" ? "X-Api-Key" : "api_key"} />
              </div>
            ) : null}
            {credType === "basic" ? (
              <div>
                <label htmlFor="cred-user" className="block text-sm">User name</label>
                <input id="cred-user" className={input} value={credUser} onChange={(e) => setCredUser(e.target.value)} autoComplete="off" />
              </div>
            ) : null}
            {credType !== "none" ? (
              <div>
                <label htmlFor="cred-value" className="block text-sm">{credType === "basic" ? "Password" : credType === "bearer" ? "Token" : "Key"}</label>
                <input id="cred-value" type="password" className={input} value={credValue} onChange={(e) => setCredValue(e.target.value)} autoComplete="off" />
              </div>
            ) : null}
          </fieldset>

          <div className="flex flex-wrap gap-3">
            <Button type="submit" variant="secondary" disabled={!ready || run.isPending}>
              {run.isPending && run.variables === true ? "Checking…" : "Preview changes"}
            </Button>
            <Button type="button" disabled={!ready || run.isPending} onClick={() => run.mutate(false)}>
              {run.isPending && run.variables === false ? "Importing…" : "Import"}
            </Button>
          </div>
        </form>

        {run.isError ? (
          <div className="mt-4">
            <Alert tone="error" title="The document was not imported">
              <p>{run.error.message}</p>
              {issuesOf(run.error).length ? (
                <ul className="mt-2 list-disc pl-5">
                  {issuesOf(run.error).map((i, n) => (
                    <li key={n}>
                      <code>{i.path}</code>: {i.message}
                    </li>
                  ))}
                </ul>
              ) : null}
            </Alert>
          </div>
        ) : null}
        {preview && !run.isError ? (
          <div className="mt-4">
            <Alert
              tone={preview.applied ? "success" : "info"}
              title={
                preview.applied
                  ? `Imported ${preview.title} as “${preview.namespace}” (version ${preview.version})`
                  : `Preview: ${preview.exists ? "re-importing" : "importing"} ${preview.title} as “${preview.namespace}” would change this — nothing is applied yet`
              }
            >
              <p className="text-sm">
                <span className="font-medium">Name:</span> {preview.title} · <span className="font-medium">Purpose:</span> {preview.description || "none (the card says what the service is from its operations)"}
              </p>
              <DiffView r={preview} />
              <SuspendedGrants r={preview} />
              {preview.applied ? (
                <p className="mt-2">
                  <Link className="underline" href={`/admin/imports/${preview.namespace}`}>
                    Curate its operations
                  </Link>
                </p>
              ) : null}
            </Alert>
          </div>
        ) : null}
      </Card>

      <Card className="relative">
        <h2 className="font-semibold">Services imported in your tenant</h2>
        {imported.isPending ? <p className="mt-3 text-sm text-slate-600" role="status">Loading…</p> : null}
        {imported.isError ? <div className="mt-3"><Alert tone="error" title="Could not load imported services">{imported.error.message}</Alert></div> : null}
        {imported.data && imported.data.realms.length === 0 ? <p className="mt-3 text-sm text-slate-600">No service imported yet.</p> : null}
        {imported.data && imported.data.realms.length ? (
          // Below md each service is a card (its cells stacked, each with its column's name on the screen); the
          // explicit roles keep the table's semantics while CSS changes the elements' display.
          <table role="table" className="mt-3 block w-full text-left text-sm md:table">
            <thead role="rowgroup" className="sr-only md:not-sr-only md:table-header-group">
              <tr role="row" className="border-b border-slate-200">
                <th role="columnheader" scope="col" className="py-2 pr-3">Service</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Base URL</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Operations</th>
                <th role="columnheader" scope="col" className="py-2 pr-3">Credential</th>
                <th role="columnheader" scope="col" className="py-2">Curate</th>
              </tr>
            </thead>
            <tbody role="rowgroup" className="block space-y-3 md:table-row-group md:space-y-0">
              {imported.data.realms.map((r) => (
                <tr key={r.namespace} role="row" className="block rounded-md border border-slate-200 p-3 md:table-row md:rounded-none md:border-0 md:border-b md:border-slate-100 md:p-0">
                  <td role="cell" className="block font-medium md:table-cell md:py-2 md:pr-3 md:font-normal">
                    {r.title} <code className="text-xs">{r.namespace}</code>
                  </td>
                  <td role="cell" className="block break-all md:table-cell md:py-2 md:pr-3">
                    <span aria-hidden="true" className="text-slate-600 md:hidden">Base URL: </span>
                    {r.base_url}
                  </td>
                  <td role="cell" className="block md:table-cell md:py-2 md:pr-3">
                    <span aria-hidden="true" className="text-slate-600 md:hidden">Operations: </span>
                    {r.operations}
                  </td>
                  <td role="cell" className="block md:table-cell md:py-2 md:pr-3">
                    <span aria-hidden="true" className="text-slate-600 md:hidden">Credential: </span>
                    {r.credential.configured ? r.credential.type : "none"}
                  </td>
                  <td role="cell" className="mt-1 block md:mt-0 md:table-cell md:py-2">
                    <Link className="underline" href={`/admin/imports/${r.namespace}`}>
                      Curate {r.title}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Card>
    </div>
  );
}
