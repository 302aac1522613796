import { z } from "zod";
import { defineTool } from "../define";
import { ref } from "../inputs";

export const deleteObject = defineTool({
  name: "delete_object",
  input: z.strictObject({ ref }),
  description: "Delete one object by ref.",
  annotations: { readOnlyHint: false, destructiveHint: true },
  target: "ref",
  operation: "object.delete",
  run: async (r, s) => r.realm.adapter.delete(r.ctx, { ref: await r.scoped(s.ref) }),
});
