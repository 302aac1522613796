// A provider's own environment variables, parsed with its own schema: a bad value is one line naming the variable.
import type { z } from "zod";
import { ConfigError } from "@/lib/env";

export function providerEnv<S extends z.ZodType>(schema: S, source: Record<string, string | undefined>): z.infer<S> {
  const r = schema.safeParse(source);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join(".") || "environment"} ${issue.message}`);
  }
  return r.data;
}
