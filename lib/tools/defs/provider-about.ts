import { z } from "zod";
import { aboutRealm, aboutRoot } from "../describe";
import { defineTool } from "../define";
import { namespace } from "../inputs";

export const providerAbout = defineTool({
  name: "provider_about",
  input: z.strictObject({ namespace: namespace.optional() }),
  description: "List the realms you may use; with `namespace`, learn one realm: purpose, kinds, selectors, actions, rules.",
  annotations: { readOnlyHint: true },
  target: "namespace_or_all",
  operation: "provider.about",
  run: async (r) => aboutRealm(r.manifest, await r.allowedHere()),
  runAll: async (a) => aboutRoot(a.realms, a.allowed),
});
