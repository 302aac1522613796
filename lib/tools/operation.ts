// Which realm and operation a tool call asks for, from the tool and its input alone (no database): the
// dispatcher gates this operation, and the MCP transport checks the OAuth scope it needs before the call runs.
import { AppError } from "@/lib/errors";
import type { OperationKey } from "@/lib/realms/contract";
import { namespaceOfRef } from "@/lib/realms/refs";
import { isToolName, toolDef, toolNames } from "./schemas";

import type { ResolvedOperation, TargetRule, UnresolvedOperation } from "./define";

export type { ResolvedOperation, UnresolvedOperation };

/** What a call that names no target is told it needs, by what the tool targets (a tool may say it itself: `needs`). */
const NEEDS: Record<TargetRule, string> = {
  ref: "a ref",
  ref_or_namespace: "a ref, or a kind and a selector",
  namespace: "a namespace, or a kind (its realm comes first, as in board.card)",
  namespace_or_all: "a namespace",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function resolveOperation(tool: string, input: unknown): ResolvedOperation | UnresolvedOperation {
  if (!isToolName(tool)) {
    return { error: new AppError("not_found", `No tool "${String(tool).slice(0, 60)}".`, { details: { known_tools: toolNames } }), operation: null };
  }
  const def = toolDef(tool);
  const s = isObject(input) ? input : {};
  let operation: OperationKey;
  if (typeof def.operation === "string") operation = def.operation;
  else if (typeof s.action === "string") operation = def.operation(s);
  else return { error: new AppError("invalid_input", `${tool} needs an action.`), operation: null };

  const ref = typeof s.ref === "string" ? s.ref : null;
  const ns = typeof s.namespace === "string" ? s.namespace : null;
  if (ref) {
    let fromRef: string;
    try {
      fromRef = namespaceOfRef(ref);
    } catch (err) {
      if (err instanceof AppError) return { error: err, operation };
      throw err;
    }
    if (ns && ns !== fromRef) return { error: new AppError("invalid_input", `The ref belongs to ${fromRef}, not ${ns}.`, { details: { ref: ref.slice(0, 120), namespace: ns } }), operation };
    return { namespace: fromRef, ref, operation };
  }
  // A kind names its realm (`board.card`): the namespace may be left out when a kind is given.
  const kind = typeof s.kind === "string" ? s.kind : null;
  const fromKind = kind && /^[a-z][a-z0-9_]{1,30}\./.test(kind) ? kind.slice(0, kind.indexOf(".")) : null;
  if (ns && fromKind && ns !== fromKind) return { error: new AppError("invalid_input", `The kind ${kind} belongs to ${fromKind}, not ${ns}.`, { details: { kind, namespace: ns } }), operation };
  if (ns) return { namespace: ns, ref: null, operation };
  if (fromKind && def.target !== "ref") return { namespace: fromKind, ref: null, operation };
  if (def.target === "namespace_or_all") return { namespace: null, ref: null, operation };
  return { error: new AppError("invalid_input", `${tool} needs ${def.needs ?? NEEDS[def.target]}.`, { details: { tool } }), operation };
}
