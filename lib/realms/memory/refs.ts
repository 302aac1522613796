// The memory realm's refs: `memory:item:<mem_id>`.
import { nativeRefs } from "@/lib/realms/native/refs";

export const refs = nativeRefs("memory", { item: { kind: "memory.item", idPrefix: "mem" } });
