import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { manifestSchema, operationKeysOf } from "./contract";
import { builtInRealmModules, builtInRealms } from "./registry";

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
