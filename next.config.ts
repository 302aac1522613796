import type { NextConfig } from "next";

// Security headers for every response; pages that must never be framed (consent) are covered by
// the global frame-ancestors 'none'.
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
];

const config: NextConfig = {
  // PGlite ships ~15 MB of wasm; pg has optional native bindings. Both stay outside the bundle. drizzle-orm too:
  // bundled, its classes were copied into several chunks, so every `is(x, Class)` check on a hot query fell back
  // from instanceof to walking prototype chains (~1 ms of CPU per tool call under load; BENCHMARKS.md).
  serverExternalPackages: ["@electric-sql/pglite", "pg", "oidc-provider", "drizzle-orm"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project first (tsc --noEmit); the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  // Parallel builds (e.g. several e2e suites on one machine) can each use their own output folder.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  typedRoutes: false,
  // `next dev` logs each request's URL; a signed download link (`sig=`, usable by whoever holds it until it expires)
  // or a sign-in callback's authorization code (`code=`) must not land in a log. `next start` logs no requests.
  logging: { incomingRequests: { ignore: [/[?&](sig|code)=/] } },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default config;
