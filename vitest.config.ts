import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["{lib,db,app,dev,bench,provider-kit,examples}/**/*.test.ts"],
    environment: "node",
    setupFiles: ["./vitest.setup.ts"],
    // One database per worker process, shared by the files it runs: a PGlite instance costs seconds.
    pool: "forks",
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // next-auth imports `next/server` without an extension, which Node's ESM resolver refuses: let Vite resolve it.
    server: { deps: { inline: ["next-auth"] } },
  },
});
