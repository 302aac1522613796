// A realm's service card in the picker grid: what it does, what it works with and touches, its kinds, and
// how many of its operations the reader's agents may use, which of them ask each time, and which are off.
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import type { RealmCardView, RealmType } from "@/lib/views/realms";

const fmt = (n: number) => n.toLocaleString("en-US");

export const realmTypeWords: Record<RealmType, string> = {
  native: "Built in",
  connected: "Uses your account",
  openapi: "Imported API",
  remote: "Remote service",
};

function ConnectionLine({ card }: { card: RealmCardView }) {
  const c = card.connection;
  if (!c.needed) return null;
  const words = {
    unknown: { tone: "slate", text: "Needs a connected account" },
    connected: { tone: "green", text: "Account connected" },
    not_connected: { tone: "amber", text: "No account connected yet" },
    needs_reconnect: { tone: "red", text: "Account needs reconnecting" },
  } as const;
  const w = words[c.status];
  return (
    <Badge tone={w.tone}>
      {w.text}
      {c.status === "connected" && c.accounts > 1 ? ` (${c.accounts})` : ""}
    </Badge>
  );
}

/**
 * What waits for a person's approval of each single call, by name: "3 ask each time: Send an email, Reply to an
 * email, Delete a document", at most three names and then "and N more".
 */
export function askingWords(ops: Pick<RealmCardView["operations"], "ask_for_my_agents" | "asking">): string | null {
  const n = ops.ask_for_my_agents;
  if (!n) return null;
  const named = ops.asking.slice(0, n);
  const more = n - named.length;
  const names = `${named.join(", ")}${more > 0 ? ` and ${fmt(more)} more` : ""}`;
  return `${fmt(n)} ask${n === 1 ? "s" : ""} each time${names ? `: ${names}` : ""}`;
}

function AskingLine({ ops }: { ops: RealmCardView["operations"] }) {
  const words = askingWords(ops);
  if (!words) return null;
  return (
    <p className="mt-1 text-sm text-amber-900" data-testid="card-asking">
      {words}.
    </p>
  );
}

/**
 * `onDetailPage`: the card sits beside the realm's own operation list, so it needs no link to it.
 * `descriptionControl`: shown instead of the open-description line (the owner's switch, which states it itself).
 */
export function RealmCard({
  card,
  children,
  onDetailPage = false,
  descriptionControl,
}: {
  card: RealmCardView;
  children?: ReactNode;
  onDetailPage?: boolean;
  descriptionControl?: ReactNode;
}) {
  const ops = card.operations;
  const headingId = `realm-${card.namespace}`;
  return (
    <article aria-labelledby={headingId} className={`flex flex-col rounded-lg ${onDetailPage ? "" : "h-full"} border border-slate-200 bg-white p-5 shadow-sm`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={headingId} className="text-lg font-semibold">
          {onDetailPage ? (
            card.title
          ) : (
            <Link href={`/realms/${card.namespace}`} className="hover:underline">
              {card.title}
            </Link>
          )}
        </h2>
        <div className="flex flex-wrap gap-1">
          <Badge tone="violet">{realmTypeWords[card.realm_type]}</Badge>
          <ConnectionLine card={card} />
        </div>
      </div>
      {card.unavailable ? (
        <p role="status" className="mt-2 rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-900" data-testid="card-unavailable">
          <span className="font-medium">Unavailable now:</span> {card.unavailable}. Agents&apos; calls here fail until its provider serves a valid manifest again.
        </p>
      ) : null}
      <p className="mt-2 text-sm text-slate-800">{card.purpose}</p>
      <dl className="mt-3 space-y-2 text-sm">
        <div>
          <dt className="font-medium text-slate-900">Works with</dt>
          <dd className="text-slate-700">{card.works_with}</dd>
        </div>
        <div>
          <dt className="font-medium text-slate-900">What it touches</dt>
          <dd>
            <ul className="list-disc pl-5 text-slate-700">
              {card.touches.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt className="font-medium text-slate-900">Kinds of things</dt>
          <dd>
            <ul className="text-slate-700">
              {card.kinds.map((k) => (
                <li key={k.name}>
                  <span className="font-medium text-slate-800">{k.label}</span> — {k.one_liner}
                </li>
              ))}
            </ul>
          </dd>
        </div>
      </dl>
      {card.connection.needed && card.connection.status !== "connected" ? (
        <p className="mt-3 text-sm text-slate-700">
          Agents can do nothing here for you until you{" "}
          <Link href="/connections" className="font-medium text-brand-700 underline">
            {card.connection.status === "needs_reconnect" ? "reconnect your account" : "connect an account"}
          </Link>
          .
        </p>
      ) : null}
      {children}
      <div className="mt-auto pt-4">
        <p className="text-sm text-slate-700">
          {fmt(ops.total)} operations: {fmt(ops.by_risk.read)} read, {fmt(ops.by_risk.write)} write, {fmt(ops.by_risk.destructive)} destructive
          {ops.describing ? <> ({ops.describing} of them let agents read what it offers)</> : null}.
        </p>
        <p className="mt-1 text-sm text-slate-700" data-testid="card-counts">
          <span className="font-medium text-slate-900">{fmt(ops.on_for_my_agents)}</span> on for your agents
          {ops.off_by_owner ? <> · {fmt(ops.off_by_owner)} off by the workspace owner</> : null}
          {ops.off_by_me ? <> · {fmt(ops.off_by_me)} off by you</> : null}
        </p>
        <AskingLine ops={ops} />
        {descriptionControl ?? (
          <p className="mt-1 text-sm text-slate-700">
            {card.open_description ? "Agents may read what it offers without asking." : "Agents ask before reading what it offers."}
          </p>
        )}
        {!descriptionControl && card.selected_only ? (
          <p className="mt-1 text-sm text-slate-700">Agents act only on the operations they selected (added to their working set).</p>
        ) : null}
        {onDetailPage ? null : (
          <Link
            href={`/realms/${card.namespace}`}
            className="mt-3 inline-flex min-h-10 items-center rounded-md px-3 py-2 text-sm font-medium text-brand-700 ring-1 ring-slate-300 hover:bg-slate-50"
          >
            Review {card.title} operations
          </Link>
        )}
      </div>
    </article>
  );
}
