// External `$ref`s of an OpenAPI document, bundled into it before it is checked: a document split over files
// (`$ref: "./schemas/pet.yaml"`, `$ref: "../common.yaml#/Error"`) becomes one document whose refs are all local.
//
// What may be read, and nothing else:
//   - companion files the owner gave beside the document (`spec_files: {"<relative path>": "<text>"}`), named
//     by their path relative to the document; or
//   - for a document imported from a URL, files of the same origin, which the import fetches through lib/net
//     (this module never fetches: it answers which files it is missing, see `missingFiles`, and is run again
//     with them).
// Never this server's disk: refs are resolved as URLs against the document's URL (or a virtual one,
// https://spec.invalid/, for given files), the ref parser's file and HTTP readers are off, and a path that
// climbs out of the given files (`../../etc/passwd`) names a file nobody gave. Vendor extensions (`x-…`
// members) are not API surface: their refs are neither resolved nor refused (Spotify's
// `x-spotify-policy-list` points at a file its document does not ship).
//
// Bounds: at most MAX_SPEC_FILES files, MAX_SPEC_FILES_BYTES of them together, each parsed like the document
// (bounded YAML aliases); cycles between files are fine (the bundler keeps them as refs); nesting is bounded
// by the file count and, after bundling, by the document's depth check. Problems answer `spec_ref_unresolved`
// with `details.reason` and the refs or files concerned.
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { AppError } from "@/lib/errors";
import type { CompileBudget } from "./budget";
import { isObject, loadSpec, parseSpecText, specError, type JsonObject, type LoadedSpec, MAX_SPEC_BYTES } from "./spec";

/** Companion files: path relative to the document (or, fetched for a URL import, absolute URL) → text. */
export type SpecFiles = Record<string, string>;

export const MAX_SPEC_FILES = 50;
export const MAX_FILE_PATH = 500;
export const MAX_SPEC_FILES_BYTES = MAX_SPEC_BYTES;
/** Where given files live: a name no resolver can reach, so a relative ref is only ever a key of `spec_files`. */
export const VIRTUAL_DOC_URL = "https://spec.invalid/spec/openapi";

export type RefReason = "missing_file" | "cross_origin" | "too_many_files" | "files_too_large" | "bad_file_name" | "unreadable_file" | "pointer_missing";

export function refError(reason: RefReason, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("spec_ref_unresolved", message, { details: { reason, ...details } });
}

/** The files a URL import must fetch before bundling can finish (absolute URLs, same origin as the document). */
export function missingFiles(err: unknown): string[] | null {
  if (!(err instanceof AppError) || err.code !== "spec_ref_unresolved" || err.details.reason !== "missing_file") return null;
  const files = err.details.missing_files;
  return Array.isArray(files) && files.every((f) => typeof f === "string") ? (files as string[]) : null;
}

const isVendorKey = (k: string) => k.startsWith("x-");

/** Every `x-` member in the tree, detached (to be put back): the bundler must not follow refs inside them. */
/**
 * Visit every object member of a JSON tree, depth first without recursion; `visit` answers whether to walk into
 * the member's value (true), skip it (false) or stop the whole walk ("stop").
 */
function walkMembers(doc: JsonObject, visit: (node: JsonObject, key: string, value: unknown) => boolean | "stop"): void {
  const stack: unknown[] = [doc];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const c of node) if (typeof c === "object" && c !== null) stack.push(c);
    } else if (isObject(node)) {
      for (const [k, v] of Object.entries(node)) {
        const next = visit(node, k, v);
        if (next === "stop") return;
        if (next && typeof v === "object" && v !== null) stack.push(v);
      }
    }
  }
}

function detachVendorExtensions(doc: JsonObject): () => void {
  const detached: [JsonObject, string, unknown][] = [];
  walkMembers(doc, (node, k, v) => {
    if (!isVendorKey(k)) return true;
    detached.push([node, k, v]);
    delete node[k];
    return false;
  });
  return () => {
    for (const [node, k, v] of detached) node[k] = v;
  };
}

/** True when a ref outside vendor extensions names another file. */
export function hasExternalRefs(doc: JsonObject): boolean {
  let found = false;
  walkMembers(doc, (_node, k, v) => {
    if (k === "$ref" && typeof v === "string" && !v.startsWith("#")) return ((found = true), "stop");
    return !isVendorKey(k);
  });
  return found;
}

/** A given file's key as a URL beside the document; null for an absolute path, a scheme or a backslash. */
export function fileUrl(key: string, docUrl: string): string | null {
  if (!key || key.length > MAX_FILE_PATH || /[\\\0]/.test(key)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(key)) {
    // Absolute keys are only those a URL import fetched itself, of the document's origin.
    try {
      const u = new URL(key);
      return u.origin === new URL(docUrl).origin ? stripHash(u) : null;
    } catch {
      return null;
    }
  }
  if (key.startsWith("/")) return null;
  try {
    return stripHash(new URL(key, docUrl));
  } catch {
    return null;
  }
}

const stripHash = (u: URL) => {
  u.hash = "";
  return u.href;
};

export type BundleInput = {
  /** The document's URL (a URL import) — relative refs resolve against it; else the virtual one. */
  docUrl?: string;
  files?: SpecFiles;
};

/**
 * Bundles the external refs of `doc` (in place) from the given files: afterwards every ref outside vendor
 * extensions is local. A document without external refs is returned untouched. Throws `spec_ref_unresolved`.
 */
export async function bundleExternalRefs(doc: JsonObject, input: BundleInput = {}): Promise<JsonObject> {
  if (!hasExternalRefs(doc)) return doc;
  const docUrl = input.docUrl ?? VIRTUAL_DOC_URL;
  const origin = new URL(docUrl).origin;
  const files = new Map<string, string>();
  let bytes = 0;
  const given = Object.entries(input.files ?? {});
  if (given.length > MAX_SPEC_FILES) throw refError("too_many_files", `At most ${MAX_SPEC_FILES} companion files are read.`, { max_files: MAX_SPEC_FILES });
  for (const [key, text] of given) {
    const url = fileUrl(key, docUrl);
    if (!url) throw refError("bad_file_name", `The companion file name ${JSON.stringify(key.slice(0, 100))} is not a relative path.`, { file: key.slice(0, MAX_FILE_PATH) });
    bytes += Buffer.byteLength(text);
    if (bytes > MAX_SPEC_FILES_BYTES) throw refError("files_too_large", `The companion files are larger than ${MAX_SPEC_FILES_BYTES / 1024 / 1024} MB together.`, { max_bytes: MAX_SPEC_FILES_BYTES });
    files.set(url, text);
  }

  const missing = new Set<string>();
  let crossOrigin = null as string | null;
  let reads = 0;
  const restore = detachVendorExtensions(doc);
  const parser = new $RefParser();
  try {
    // Bundled in place (mutateInputSchema), so the vendor extensions detached above go back where they were.
    await parser.bundle(docUrl, doc as never, {
      continueOnError: false,
      mutateInputSchema: true,
      resolve: {
        file: false,
        http: false,
        external: true,
        given: {
          order: 1,
          canRead: true,
          read: (file: { url: string }) => {
            const u = new URL(file.url);
            u.hash = "";
            if (u.origin !== origin) {
              crossOrigin ??= u.href;
              return "{}";
            }
            if (++reads > MAX_SPEC_FILES) throw refError("too_many_files", `The document's refs name more than ${MAX_SPEC_FILES} files.`, { max_files: MAX_SPEC_FILES });
            const text = files.get(u.href);
            if (text === undefined) {
              missing.add(u.href);
              return "{}";
            }
            return text;
          },
        },
      },
      parse: {
        json: false,
        yaml: false,
        text: false,
        binary: false,
        spec: {
          order: 1,
          canParse: true,
          allowEmpty: true,
          parse: (file: { url: string; data: unknown }) => {
            const data = file.data;
            const text = Buffer.isBuffer(data) ? data.toString("utf8") : typeof data === "string" ? data : null;
            if (text === null) return data;
            try {
              return parseSpecText(text);
            } catch (cause) {
              throw refError("unreadable_file", `The file ${shownUrl(file.url, docUrl)} is neither JSON nor YAML: ${(cause as Error).message}`, { file: shownUrl(file.url, docUrl) });
            }
          },
        },
      },
    } as never);
  } catch (err) {
    if (!missing.size && !crossOrigin) {
      if (err instanceof AppError) throw err;
      const cause = unwrap(err);
      if (cause instanceof AppError) throw cause;
      throw refError("pointer_missing", `A $ref cannot be resolved: ${String((cause as Error)?.message ?? cause).replaceAll(VIRTUAL_DOC_URL, "(the document)").slice(0, 300)}`);
    }
  } finally {
    restore();
  }
  if (crossOrigin) {
    throw refError("cross_origin", `A $ref names ${crossOrigin.slice(0, 200)}: only files beside the document (same origin) are read.`, { ref: crossOrigin.slice(0, 500) });
  }
  if (missing.size) {
    const list = [...missing].sort();
    const shown = list.map((m) => shownUrl(m, docUrl));
    throw refError(
      "missing_file",
      input.docUrl ? `The document's refs name files that could not be read: ${shown.slice(0, 5).join(", ")}.` : `The document's refs name files that were not given in spec_files: ${shown.slice(0, 5).join(", ")}.`,
      { missing_files: input.docUrl ? list.slice(0, MAX_SPEC_FILES) : shown.slice(0, MAX_SPEC_FILES), issues: shown.slice(0, 50).map((f) => ({ path: "spec_files", message: `missing ${f}` })) },
    );
  }
  return doc;
}

/** The ref parser wraps resolver and parser errors; the AppError inside, if any. */
function unwrap(err: unknown): unknown {
  let e = err as { cause?: unknown; errors?: unknown[] } | undefined;
  for (let i = 0; i < 5 && e && !(e instanceof AppError); i++) {
    const next = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
    if (!next) break;
    e = next as typeof e;
  }
  return e;
}

/** A file's URL as the owner wrote it: relative to the document for given files. */
function shownUrl(url: string, docUrl: string): string {
  if (docUrl !== VIRTUAL_DOC_URL) return url;
  const dir = VIRTUAL_DOC_URL.slice(0, VIRTUAL_DOC_URL.lastIndexOf("/") + 1);
  return url.startsWith(dir) ? url.slice(dir.length) : url.replace("https://spec.invalid/", "../");
}

/**
 * `loadSpec` with the document's external refs bundled in first (from `input.files`, against `input.docUrl`).
 * Documents that are not OpenAPI 3 objects go straight to `loadSpec`, which says what is wrong with them.
 */
export async function loadBundledSpec(spec: string | JsonObject, input: BundleInput = {}, budget?: CompileBudget): Promise<LoadedSpec> {
  const raw = typeof spec === "string" ? parseSpecText(spec) : spec;
  budget?.checkTime();
  if (!isObject(raw)) throw specError("The document is not an object.", [{ path: "(root)", message: "expected an OpenAPI object" }]);
  if (typeof raw.openapi === "string" && /^3\.[01]/.test(raw.openapi)) await bundleExternalRefs(raw, input);
  return loadSpec(raw, budget);
}
