// object_schema(namespace, operation) with an operation that is one of Object.prototype's names: not_found, never
// a 500 (the base-tool and label tables are looked up by the caller's text).
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { manifest as boardManifest } from "@/lib/realms/board/manifest";
import { manifest as docsManifest } from "@/lib/realms/docs/manifest";
import { schemaOperation } from "./describe";
import { toolContract } from "./schemas";

describe("schemaOperation", () => {
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "object.action.constructor", "object.action.__proto__"])(
    "%s → not_found",
    (op) => {
      for (const m of [docsManifest, boardManifest]) {
        let err: unknown;
        try {
          schemaOperation(m, op, toolContract(op));
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe("not_found");
      }
    },
  );

  it("still describes a real base operation", () => {
    expect(schemaOperation(docsManifest, "object.get", toolContract("object.get"))).toMatchObject({ operation: "object.get", tool: "get_object", label: expect.any(String) });
  });
});
