// tools/list hints are true of the caller's realms: object_action is read-only for an agent whose grantor left
// only reading actions on, destructive when a destructive action could be granted; open-world when a realm it
// reaches acts on an outside service.
import { describe, expect, it } from "vitest";
import { changeChoices, operationStates } from "@/lib/authz/policy";
import { riskOf, type OperationKey } from "@/lib/realms/contract";
import { builtInRealms } from "@/lib/realms/registry";
import { toolsFor } from "@/lib/tools/catalog";
import { call, makeActor, makeTenant } from "@/test-support";

const hintsOf = async (...args: Parameters<typeof toolsFor>) => Object.fromEntries((await toolsFor(...args)).map((t) => [t.entry.name, t.annotations]));

describe("MCP tool hints for one caller", () => {
  it("follow what the caller could be granted", async () => {
    const t = await makeTenant();
    const bob = t.users.bob!;
    const agent = await makeActor(t, bob);
    const all = await hintsOf(t.db, agent);
    expect(all.get_object).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(all.delete_object).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    // Some action anywhere destroys (mail and docs have destructive actions).
    expect(all.object_action).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });

    // Bob leaves only reading actions on: object_action becomes read-only for his agents.
    for (const ns of ["docs", "board", "memory", "mail", "slack"]) {
      const writes = (await operationStates(t.db, t.tenantId, bob.userId, ns)).filter((s) => s.operation.startsWith("object.action.") && !isRead(ns, s.operation));
      if (writes.length) await changeChoices(t.db, call(bob), { namespace: ns, changes: writes.map((w) => ({ operation: w.operation, mode: "off" as const })) });
    }
    const reads = await hintsOf(t.db, agent);
    expect(reads.object_action).toMatchObject({ readOnlyHint: true });
    expect(reads.object_action!.destructiveHint).toBeUndefined();
  });
});

// Which actions only read, from the manifests (asked of the registry, not a hard-coded list).
const isRead = (ns: string, op: string) => riskOf(builtInRealms[ns]!.manifest, op as OperationKey) === "read";
