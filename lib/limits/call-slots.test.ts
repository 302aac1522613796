import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "@/lib/errors";
import { envOverride, errorOf, secondCopyOf } from "@/test-support";
import { callSlots, defaultNativeMaxInFlight, nativeCallSlots } from "./call-slots";

/** A piece of work that runs until `finish()`; `started` says whether it began. */
function held<T = string>(value?: T) {
  let finish!: () => void;
  const gate = new Promise<void>((r) => (finish = r));
  const state = { started: false };
  const work = async () => {
    state.started = true;
    await gate;
    return value;
  };
  return { work, finish, state };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("call slots", () => {
  it("run at most `max` at once; the next waits and starts when one comes back", async () => {
    const slots = callSlots(2, 5_000);
    const [a, b, c] = [held("a"), held("b"), held("c")];
    const runs = [slots.run(a.work), slots.run(b.work), slots.run(c.work)];
    await tick();
    expect([a.state.started, b.state.started, c.state.started]).toEqual([true, true, false]);
    expect([slots.running, slots.waiting]).toEqual([2, 1]);
    b.finish();
    await tick();
    expect(c.state.started).toBe(true);
    a.finish();
    c.finish();
    expect(await Promise.all(runs)).toEqual(["a", "b", "c"]);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it("are handed out first come, first served", async () => {
    const slots = callSlots(1, 5_000);
    const first = held();
    const order: number[] = [];
    const running = slots.run(first.work);
    const waiting = [1, 2, 3].map((n) => slots.run(async () => void order.push(n)));
    await tick();
    // One arriving after the slot came back does not overtake those already in line.
    first.finish();
    const late = slots.run(async () => void order.push(4));
    await Promise.all([running, ...waiting, late]);
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("come back when the work fails", async () => {
    const slots = callSlots(1, 5_000);
    await expect(slots.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(slots.running).toBe(0);
    expect(await slots.run(async () => "next")).toBe("next");
  });

  it("a call waiting past the bound is answered 503 busy, never runs, and leaves the line", async () => {
    const slots = callSlots(1, 30);
    const first = held();
    const running = slots.run(first.work);
    const ran = vi.fn(async () => "ran");
    const err = await errorOf(slots.run(ran));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("service_unavailable");
    expect(err.status).toBe(503);
    expect(err.headers["Retry-After"]).toBe("1");
    expect(err.details).toMatchObject({ reason: "busy", in_flight: 1, retry_hint: "retry_later" });
    expect(slots.waiting).toBe(0);
    first.finish();
    await running;
    expect(ran).not.toHaveBeenCalled();
    expect(slots.running).toBe(0);
  });

  it("refuse a size that is not a positive integer", () => {
    expect(() => callSlots(0, 10)).toThrow();
    expect(() => callSlots(1.5, 10)).toThrow();
  });
});

describe("a node's slots for calls on native realms", () => {
  const env = envOverride();
  afterEach(() => env.restore());

  it("ask the system for the CPU count once per process, not on every call", () => {
    defaultNativeMaxInFlight();
    const asked = vi.spyOn(os, "availableParallelism");
    try {
      for (let i = 0; i < 5; i++) nativeCallSlots();
      expect(defaultNativeMaxInFlight()).toBe(2 * os.availableParallelism() + 1);
      expect(asked).toHaveBeenCalledTimes(1); // the line above's own call, none from the slots
    } finally {
      asked.mockRestore();
    }
  });

  it("default to twice the CPUs this process may use, plus one; REALMGATE_NATIVE_MAX_IN_FLIGHT sets them", async () => {
    expect(defaultNativeMaxInFlight()).toBe(2 * os.availableParallelism() + 1);
    env.set({ REALMGATE_NATIVE_MAX_IN_FLIGHT: undefined });
    const slots = nativeCallSlots();
    const works = Array.from({ length: defaultNativeMaxInFlight() + 1 }, () => held());
    const runs = works.map((w) => slots.run(w.work));
    await tick();
    expect(works.map((w) => w.state.started).filter(Boolean).length).toBe(defaultNativeMaxInFlight());
    works.forEach((w) => w.finish());
    await Promise.all(runs);

    env.set({ REALMGATE_NATIVE_MAX_IN_FLIGHT: "1" });
    const one = nativeCallSlots();
    const [a, b] = [held(), held()];
    const both = [one.run(a.work), one.run(b.work)];
    await tick();
    expect([a.state.started, b.state.started]).toEqual([true, false]);
    a.finish();
    b.finish();
    await Promise.all(both);
  });

  it("are one set per process, whichever copy of the module asks (Next.js may load it twice)", async () => {
    env.set({ REALMGATE_NATIVE_MAX_IN_FLIGHT: "2" });
    const mine = nativeCallSlots();
    const other = await secondCopyOf<typeof import("./call-slots")>("@/lib/limits/call-slots.ts");
    expect(other.nativeCallSlots).not.toBe(nativeCallSlots); // a copy of its own, as under `next start`
    expect(other.nativeCallSlots()).toBe(mine);
  });
});
