import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { AppHeader } from "@/components/layout/app-header";
import { Providers } from "@/components/providers";
import { optionalPageUser } from "@/lib/auth/page-session";
import { getDb } from "@/db/client";
import { pendingRequestCount } from "@/lib/views/pending";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Realmgate", template: "%s · Realmgate" },
  description: "Let AI agents work across your tools — with you deciding what each may do.",
  icons: { icon: [{ url: "/icon.svg", type: "image/svg+xml" }], apple: [{ url: "/apple-touch-icon.png", sizes: "180x180", type: "image/png" }] },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#1f232b" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await optionalPageUser();
  // Support staff decide no consent requests; everyone else sees how many wait for them.
  const pending = user && user.role !== "support" ? await pendingRequestCount(await getDb(), user) : null;
  return (
    <html lang="en">
      <body className="min-h-screen">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:rounded focus:bg-white focus:px-3 focus:py-2">
          Skip to content
        </a>
        <Providers>
          <AppHeader user={user} pending={pending} />
          <main id="main" className="mx-auto max-w-6xl px-4 py-8">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
