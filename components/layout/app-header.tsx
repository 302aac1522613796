import Link from "next/link";
import { signOut } from "@/lib/auth/next-auth";
import type { PageUser } from "@/lib/auth/page-session";
import { PendingBadge } from "./pending-badge";

const nav: { href: string; label: string; roles?: readonly string[] }[] = [
  { href: "/realms", label: "Realms" },
  { href: "/agents", label: "Agents" },
  { href: "/connections", label: "Connections" },
  { href: "/support", label: "Support", roles: ["owner", "support"] },
  { href: "/admin/imports", label: "Imports", roles: ["owner"] },
  { href: "/admin/providers", label: "Providers", roles: ["owner"] },
  { href: "/settings/api-keys", label: "API keys" },
  { href: "/settings/account", label: "Account" },
];

/** `pending`: how many consent requests and single-call approvals wait for the signed-in person (null for support, who decides none). */
export function AppHeader({ user, pending = null }: { user: PageUser | null; pending?: number | null }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <Link href="/" className="text-lg font-semibold tracking-tight text-slate-900">
          Realmgate
        </Link>
        {user ? (
          <div className="flex flex-wrap items-center gap-2">
            <nav aria-label="Main">
              <ul className="flex flex-wrap gap-1">
                {nav.filter((n) => !n.roles || n.roles.includes(user.role)).map((n) => (
                  <li key={n.href}>
                    <Link className="inline-flex items-center rounded-md px-3 py-2 text-sm text-slate-700 hover:bg-slate-100" href={n.href}>
                      {n.label}
                      {n.href === "/agents" && pending !== null ? <PendingBadge initial={pending} /> : null}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
            <span className="text-sm text-slate-600">
              {user.name} · {user.tenantName} · <span className="font-medium">{user.role}</span>
            </span>
            <form
              action={async () => {
                "use server";
                await signOut({ redirectTo: "/signin" });
              }}
            >
              <button type="submit" className="rounded-md px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-300 hover:bg-slate-100">
                Sign out
              </button>
            </form>
          </div>
        ) : null}
      </div>
    </header>
  );
}
