"use client";
// How an agent connects over MCP: the server's MCP URL to copy and ready-made configuration for Claude Code,
// Cursor and the MCP Inspector CLI. The token shows only when it was just created; otherwise a placeholder.
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import type { McpSnippet } from "@/lib/views/agents";

export type McpSetupInfo = { url: string; snippets: McpSnippet[]; placeholder: string };

/** A copy button with its outcome announced beside it ("Copied to the clipboard." or how to copy by hand). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        type="button"
        variant="secondary"
        aria-label={label}
        onClick={() => {
          const done = navigator.clipboard?.writeText(text);
          if (!done) return setState("failed");
          done.then(
            () => setState("copied"),
            () => setState("failed"),
          );
        }}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </Button>
      <span role="status" className="text-xs text-slate-600">
        {state === "copied" ? "Copied to the clipboard." : state === "failed" ? "Could not copy: select the text and copy it." : ""}
      </span>
    </span>
  );
}

export function McpSetup({ info, agentName, token }: { info: McpSetupInfo; agentName: string; token?: string | null }) {
  const id = useId();
  const fill = (t: string) => (token ? t.split(info.placeholder).join(token) : t);
  return (
    <section aria-labelledby={`${id}-h`} className="rounded-md border border-slate-200 bg-slate-50 p-3">
      <h4 id={`${id}-h`} className="font-medium">
        Connect {agentName} over MCP
      </h4>
      <p className="mt-1 text-sm text-slate-700">
        {token
          ? "The snippets below hold the token just created: copy them now, it will not be shown again."
          : `Replace ${info.placeholder} with ${agentName}'s token (issue a new one below if you no longer have it).`}
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <label htmlFor={`${id}-url`} className="text-sm font-medium">
          MCP URL
        </label>
        <input id={`${id}-url`} readOnly value={info.url} className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 font-mono text-xs" />
        <CopyButton text={info.url} label={`Copy the MCP URL for ${agentName}`} />
      </div>
      <ul className="mt-3 flex flex-col gap-3">
        {info.snippets.map((s) => (
          <li key={s.id}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <label htmlFor={`${id}-${s.id}`} className="text-sm">
                <strong>{s.label}</strong> configuration for {agentName} · {s.where}
              </label>
              <CopyButton text={fill(s.text)} label={`Copy the ${s.label} configuration for ${agentName}`} />
            </div>
            <textarea
              id={`${id}-${s.id}`}
              readOnly
              rows={fill(s.text).split("\n").length + 1}
              value={fill(s.text)}
              data-snippet={s.id}
              spellCheck={false}
              className="mt-1 block w-full resize-none overflow-x-auto whitespace-pre rounded border border-slate-300 bg-white p-2 font-mono text-xs"
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
