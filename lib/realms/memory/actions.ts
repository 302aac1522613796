// The memory realm's actions: pin and forget an item.
import { defineAction } from "@/lib/realms/native/adapter";
import { destroyItem, loadItem, updateItem } from "./kinds/item";
import { forgetPayload, pinPayload } from "./manifest";

export const actions = {
  pin: defineAction(pinPayload, async (ctx, ref, { pinned }) => updateItem(ctx, await loadItem(ctx, ref), { pinned })),
  forget: defineAction(forgetPayload, async (ctx, ref, { reason }) => {
    await destroyItem(ctx, await loadItem(ctx, ref), ref);
    return { ref, forgotten: true, ...(reason ? { reason } : {}) };
  }),
};
