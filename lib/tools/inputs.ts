// The pieces tool inputs are built from: strict, bounded, each described once for a model.
import { z } from "zod";

export const namespace = z.string().min(2).max(31).describe("Realm namespace, e.g. `docs`.");
export const ref = z.string().min(3).max(512).describe("An opaque object ref returned by another tool, e.g. `docs:thread:thr_…`.");
export const kind = z.string().min(3).max(80).describe("Object kind, e.g. `docs.comment_thread`.");
export const cursor = z.string().min(1).max(2000).describe("`next_cursor` from the previous page.");
export const limit = z.number().int().min(1).max(100).optional().describe("Page size (default 20).");
const filterValue = z.union([z.string().max(500), z.number(), z.boolean(), z.array(z.string().max(500)).max(50)]);
export const filter = z.record(z.string().max(64), filterValue).optional().describe("Field filters the kind declares.");
export const selector = z
  .record(z.string().max(64), z.string().min(1).max(500))
  .describe("Name an object the way a person would (e.g. `{\"title\": \"Q3 planning\"}`); ambiguity returns choices.");
export const idempotencyKey = z.string().min(8).max(128).regex(/^[\x21-\x7e]+$/).optional().describe("Same key + same body replays the first result once.");
export const payload = z.record(z.string(), z.unknown()).optional();
