// An operation's action name (its operationId, or `METHOD/path`) and its risk (from the HTTP method).
import { actionNameSchema, type Risk } from "@/lib/realms/contract";
import type { HttpMethod } from "./operation-types";

const ACTION_NAME_MAX = 200;

/**
 * The action name of an operation that has no usable operationId: `METHOD/path` with no space, made to match
 * ACTION_NAME_PATTERN — braces of path templates dropped (`GET /repos/{owner}/{repo}` → `GET/repos/owner/repo`),
 * any other character the rule forbids replaced by `_`, runs of `_` and of `/` collapsed, at most 200 characters.
 * With `taken`, a name already used gets `-2`, `-3`… Pure: the same input always gives the same name (a start-up
 * step renames legacy `METHOD /path` names with it).
 */
export function fallbackActionName(method: string, path: string, taken?: ReadonlySet<string>): string {
  const verb = method.toUpperCase().replace(/[^A-Z0-9]/g, "") || "OP";
  const rest = `/${path}`
    .replace(/[{}]/g, "")
    .replace(/[^A-Za-z0-9_.\-/]/g, "_")
    .replace(/_+/g, "_")
    .replace(/\/+/g, "/");
  const base = `${verb}${rest}`.slice(0, ACTION_NAME_MAX);
  if (!taken?.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const name = `${base.slice(0, ACTION_NAME_MAX - suffix.length)}${suffix}`;
    if (!taken.has(name)) return name;
  }
}

export const riskOfMethod = (m: HttpMethod): Risk => (m === "GET" || m === "HEAD" || m === "OPTIONS" || m === "TRACE" ? "read" : m === "DELETE" ? "destructive" : "write");

/**
 * The action name of an operation: its operationId as written; `METHOD/path` when it has none, or one that is
 * unusable or already taken (with a warning saying so). `usable` is false when no name can be made; a usable
 * name is added to `used`.
 */
export function actionNameOf(rawId: string | null, method: HttpMethod, path: string, used: Set<string>, warn: (m: string) => void): { action: string; usable: boolean } {
  let action: string;
  if (rawId !== null && actionNameSchema.safeParse(rawId).success && !used.has(rawId)) {
    action = rawId;
  } else {
    action = fallbackActionName(method, path, used);
    if (rawId !== null) {
      if (used.has(rawId)) warn(`operationId ${rawId} is used twice; this operation is named ${action}`);
      else warn(`operationId ${JSON.stringify(rawId.slice(0, 80))} is not a usable action name (a letter or digit, then letters, digits, _ . - or /); the operation is named ${action}`);
    }
  }
  if (!actionNameSchema.safeParse(action).success || used.has(action)) return { action, usable: false };
  used.add(action);
  return { action, usable: true };
}
