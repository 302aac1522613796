// One action as an exact tool: its input is the action's payload schema with `ref` beside it when the action runs
// on an object (and `idempotency_key` / `approval_id` for an action that changes something, as object_action takes
// them); its title the action's label, its description a few lines, its MCP hints true of the action. A call of
// it is translated to exactly the object_action input it stands for (`objectActionInput`), so it runs the same path.
import { canonicalJson } from "@/lib/canonical-json";
import { AppError } from "@/lib/errors";
import { actionOperationKey, type ActionDef, type ActionOperationKey, type Realm } from "@/lib/realms/contract";
import type { WorkingSetSlot } from "@/db/schema";

export type ExactToolAnnotations = { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };

/** What tools/list (and GET /api/v1/tools) shows of an exact tool. */
export type ExactToolEntry = { name: string; title: string; description: string; inputSchema: Record<string, unknown>; annotations: ExactToolAnnotations };

export type ExactTool = {
  entry: ExactToolEntry;
  namespace: string;
  operation: ActionOperationKey;
  action: ActionDef;
  slot: WorkingSetSlot;
  /** The payload is nested under `payload` (its own fields would clash with ref, idempotency_key or approval_id, or it is not a plain object schema). */
  nested: boolean;
  /** Bytes of `entry` as canonical JSON: what it adds to the catalog a model is sent on every turn. */
  bytes: number;
};

/** Top-level inputs that are the call's, never the payload's (`ref` only where the action runs on an object). */
const reservedOf = (a: Pick<ActionDef, "target_kind">) => [...(a.target_kind ? ["ref"] : []), "idempotency_key", "approval_id"];
/** The keywords a payload schema may have at its top for its fields to be lifted beside ref (no combinators). */
const FLAT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties", "description", "title", "$defs", "definitions", "$schema"]);

const DESCRIPTION_CHARS = 280;

const oneLine = (s: string) => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > DESCRIPTION_CHARS ? `${t.slice(0, DESCRIPTION_CHARS - 1)}…` : t;
};

export const slotOf = (a: Pick<ActionDef, "risk">): WorkingSetSlot => (a.risk === "read" ? "read" : "write");

const bytesOf = (v: unknown) => Buffer.byteLength(canonicalJson(v));

export function exactTool(realm: Realm, action: ActionDef, name: string): ExactTool {
  const m = realm.manifest;
  const ps = action.payload_schema as Record<string, unknown>;
  const props = (typeof ps.properties === "object" && ps.properties !== null ? ps.properties : {}) as Record<string, unknown>;
  const nested = (ps.type !== undefined && ps.type !== "object") || Object.keys(ps).some((k) => !FLAT_KEYWORDS.has(k)) || reservedOf(action).some((k) => Object.hasOwn(props, k));
  const kind = action.target_kind ? m.kinds.find((k) => k.name === action.target_kind) : undefined;
  const writes = action.risk !== "read";
  const label = kind?.label ?? action.target_kind ?? "";
  // "Comment thread" reads as a noun in a sentence; "PR" or "GitHub issue" keep their capitals.
  const noun = /^[A-Z][a-z]*(\s|$)/.test(label) ? `${label[0]!.toLowerCase()}${label.slice(1)}` : label;
  const own: Record<string, unknown> = {
    ...(action.target_kind ? { ref: { type: "string", description: `The ${noun} it runs on: its ref, exactly as a tool returned it.` } } : {}),
    ...(writes
      ? {
          idempotency_key: { type: "string", minLength: 8, maxLength: 128, description: "Makes a retry safe: replays the first result." },
          approval_id: { type: "string", description: "After approval_required: the approval_id it gave." },
        }
      : {}),
  };
  const required = [...(action.target_kind ? ["ref"] : [])];
  const { $schema: _s, $defs, definitions, ...payload } = ps;
  const defs = { ...($defs ? { $defs } : {}), ...(definitions ? { definitions } : {}) };
  const inputSchema: Record<string, unknown> = nested
    ? { type: "object", properties: { ...own, payload }, required: [...required, ...(Array.isArray(ps.required) && ps.required.length ? ["payload"] : [])], additionalProperties: false, ...defs }
    : {
        type: "object",
        properties: { ...props, ...own },
        required: [...(Array.isArray(ps.required) ? (ps.required as string[]) : []), ...required],
        additionalProperties: ps.additionalProperties ?? false,
        ...defs,
      };
  if ((inputSchema.required as string[]).length === 0) delete inputSchema.required;
  const where = action.target_kind ? `on a ${noun} (ref)` : `in ${m.service_card.title}`;
  const description = `${oneLine(action.description)} Runs ${m.namespace}'s ${action.name} ${where}; returns ${oneLine(action.returns)}`;
  const openWorld = m.realm_type !== "native";
  const annotations: ExactToolAnnotations = writes
    ? { readOnlyHint: false, destructiveHint: action.risk === "destructive", idempotentHint: false, openWorldHint: openWorld }
    : { readOnlyHint: true, openWorldHint: openWorld };
  const entry: ExactToolEntry = { name, title: action.label, description, inputSchema, annotations };
  return { entry, namespace: m.namespace, operation: actionOperationKey(action.name), action, slot: slotOf(action), nested, bytes: bytesOf(entry) };
}

/** The object_action input a call of the exact tool stands for: the call's own inputs lifted out, the rest its payload. */
export function objectActionInput(t: ExactTool, args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { action: t.action.name };
  if (!t.action.target_kind) out.namespace = t.namespace;
  const rest: Record<string, unknown> = {};
  const reserved = reservedOf(t.action);
  for (const [k, v] of Object.entries(args)) {
    if (reserved.includes(k)) out[k] = v;
    else rest[k] = v;
  }
  if (t.nested) {
    const { payload, ...extra } = rest;
    // Nothing else is an input of this tool (least of all action, namespace, kind or selector: it runs its own action).
    const stray = Object.keys(extra);
    if (stray.length) {
      throw new AppError("invalid_input", `${t.entry.name} takes ${[...reserved, "payload"].join(", ")}; ${stray.slice(0, 5).join(", ")} is not one of them (the action's fields go in payload).`, {
        details: { tool: t.entry.name, unknown_fields: stray.slice(0, 20) },
      });
    }
    if (payload !== undefined) out.payload = payload;
  } else if (Object.keys(rest).length) out.payload = rest;
  return out;
}
