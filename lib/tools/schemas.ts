// The nine tools' inputs, read from their definitions (./defs): REST, MCP and the UI are thin adapters over
// these schemas and the dispatcher. Inputs are strict (unknown fields rejected) and bounded.
import { z } from "zod";
import type { ToolDef } from "./define";
import { tools } from "./defs";
import { isIssued } from "./inputs";

type Tools = (typeof tools)[number];
export type ToolName = Tools["name"];
export type ToolInput<T extends ToolName> = z.infer<Extract<Tools, { name: T }>["input"]>;

export const toolNames: ToolName[] = tools.map((t) => t.name);

const byName = new Map<string, ToolDef>(tools.map((t) => [t.name, t]));

export function isToolName(name: string): name is ToolName {
  return byName.has(name);
}

/** A tool's definition. */
export function toolDef(name: ToolName): ToolDef {
  return byName.get(name)!;
}

/** One line each, written for a model. */
export const toolDescriptions = Object.fromEntries(tools.map((t) => [t.name, t.description])) as Record<ToolName, string>;

/** The tool of each base operation (a Map: an operation is sometimes the caller's text). */
const baseTool = new Map<string, ToolName>(tools.flatMap((t) => (typeof t.operation === "string" ? [[t.operation, t.name] as const] : [])));

/** The tool of a base operation, with its input's JSON Schema (an operation's contract in object_schema). */
export function toolContract(op: string): { name: ToolName; inputSchema: Record<string, unknown> } | undefined {
  const name = baseTool.get(op);
  return name ? { name, inputSchema: toolJsonSchema(name) } : undefined;
}

/**
 * JSON Schema of each tool's input, derived from the zod schema (never written twice). Two keywords that say
 * nothing are left out, so the schema means the same with fewer bytes: `additionalProperties: {}` (any value, the
 * default) and `propertyNames: {type: "string"}` (JSON keys are always strings). `lean` (the tool catalog, sent
 * on every turn) also leaves out the length bounds of values Realmgate issues (`isIssued` in ./inputs.ts); zod
 * still enforces them, and the full schema is an operation's contract in object_schema.
 */
export function toolJsonSchema(name: ToolName, opts: { lean?: boolean } = {}): Record<string, unknown> {
  const schema = z.toJSONSchema(toolDef(name).input, {
    target: "draft-2020-12",
    unrepresentable: "any",
    override: ({ zodSchema, jsonSchema: s }) => {
      if (isEmptyObject(s.additionalProperties)) delete s.additionalProperties;
      if (isEmptyObject(s.propertyNames, ["type"]) && (s.propertyNames as { type?: unknown }).type === "string") delete s.propertyNames;
      if (opts.lean && isIssued(zodSchema)) {
        delete s.minLength;
        delete s.maxLength;
      }
    },
  }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** An object with no keys but these. */
const isEmptyObject = (v: unknown, allowed: string[] = []) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).every((k) => allowed.includes(k));
