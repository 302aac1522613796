import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manifestSchema, operationKeysOf } from "./contract";
import { edgesOf, readSources } from "@/test-support/import-graph";
import { builtInRealmModules, builtInRealms } from "./registry";

const isTestCode = (f: string) => /\.test\.tsx?$/.test(f) || f.includes("/fixtures/") || f.startsWith("test-support/");

describe("the realm registry", () => {
  it.each(Object.entries(builtInRealms))("%s: manifest parses, folder = namespace = key", (key, realm) => {
    expect(() => manifestSchema.parse(realm.manifest)).not.toThrow();
    expect(realm.manifest.namespace).toBe(key);
    expect(fs.existsSync(path.join(import.meta.dirname, key, "manifest.ts"))).toBe(true);
    expect(fs.existsSync(path.join(import.meta.dirname, key, "adapter.ts"))).toBe(true);
  });

  it("lists every realm folder", () => {
    const folders = fs
      .readdirSync(import.meta.dirname, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(import.meta.dirname, d.name, "manifest.ts")) && d.name !== "openapi")
      .map((d) => d.name)
      .sort();
    expect(Object.keys(builtInRealms).sort()).toEqual(folders);
  });

  it("registers each realm folder's own module (its index.ts), demo step included", async () => {
    for (const m of builtInRealmModules) {
      const ns = m.realm.manifest.namespace;
      const index = path.join(import.meta.dirname, ns, "index.ts");
      if (!fs.existsSync(index)) continue; // mail is listed from its manifest and adapter (it has no demo)
      const mod = (await import(`./${ns}/index.ts`)) as Record<string, unknown>;
      expect(mod[ns], ns).toBe(m);
      expect(m.demo !== undefined, ns).toBe(fs.existsSync(path.join(import.meta.dirname, ns, "demo.ts")));
    }
  });

  it("labels every operation of every realm for people", () => {
    for (const realm of Object.values(builtInRealms)) {
      for (const op of operationKeysOf(realm.manifest)) expect(realm.manifest.service_card.operation_labels[op], `${realm.manifest.namespace} ${op}`).toBeTruthy();
    }
  });
});

describe("a native realm is its folder, one registry line and its tables", () => {
  it("nothing outside them imports a native realm's code or tables (so adding one touches nothing else)", () => {
    const files = readSources(process.cwd(), ["lib", "db", "app", "components", "scripts", "dev"]);
    const native = Object.values(builtInRealms)
      .filter((r) => r.manifest.realm_type === "native")
      .map((r) => r.manifest.namespace);
    const outside: string[] = [];
    for (const e of edgesOf(files)) {
      if (isTestCode(e.from)) continue;
      for (const ns of native) {
        const own = e.from.startsWith(`lib/realms/${ns}/`) || e.from === `db/schema/${ns}.ts` || e.from === "lib/realms/registry.ts";
        const intoRealm = e.to.startsWith(`lib/realms/${ns}/`) || e.to === `db/schema/${ns}.ts`;
        // The registry lists the realm's module, and only that.
        if (intoRealm && e.from === "lib/realms/registry.ts" && e.to !== `lib/realms/${ns}/index.ts`) outside.push(`${e.from} → ${e.to}`);
        else if (intoRealm && !own) outside.push(`${e.from} → ${e.to}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
