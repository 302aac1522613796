// Test fixture: change process.env for a test file and put it back afterwards (re-reading lib/env each time).
import { reloadEnv } from "@/lib/env";

export function envOverride() {
  const saved: Record<string, string | undefined> = {};
  const put = (k: string, v: string | undefined) => {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  };
  return {
    set(vars: Record<string, string | undefined>) {
      for (const [k, v] of Object.entries(vars)) {
        if (!(k in saved)) saved[k] = process.env[k];
        put(k, v);
      }
      reloadEnv();
    },
    restore() {
      for (const [k, v] of Object.entries(saved)) put(k, v);
      reloadEnv();
    },
  };
}
