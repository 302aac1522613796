import { z } from "zod";
import { aboutRealm, aboutRoot } from "../describe";
import { defineTool } from "../define";
import { namespace } from "../inputs";

export const providerAbout = defineTool({
  name: "provider_about",
  input: z.strictObject({ namespace: namespace.optional() }),
  description: "Start here: the realms you may use; with `namespace`, one realm's kinds, selectors, actions and the rules all tools follow.",
  annotations: { readOnlyHint: true },
  target: "namespace_or_all",
  operation: "provider.about",
  run: async (r) => aboutRealm(r.manifest, await r.allowedHere(), await r.grantableHere(), await r.askingHere()),
  runAll: async (a) => aboutRoot(a.realms, a.allowed, a.grantable),
});
